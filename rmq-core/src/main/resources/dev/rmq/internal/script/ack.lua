-- ack: ends in-flight deliveries of one slot.
-- ARGV
--   policy{}        the topic's retry policy, for the deliveries that failed
--   fence           the worker's fencing token ('' when unfenced)
--   acks[]          the deliveries to end, each:
--     op            'C' commit, 'R' roll back (retry after backoff, or dead after the maximum retries),
--                   'D' dead at once (the message cannot be decoded or the handler said so),
--                   'U' release unstarted (back to waiting at its score, the delivery not counted)
--     key           the message key
--     token         the lease deadline the delivery was given; a different one means the lease was lost
--     reason        why it failed ('' on commit)
-- RETURNS one result per ack, in order: committed retry dead merged released stale gone
--   (merged: a newer send of the key already waits; stale: the lease was lost, nothing done;
--   gone: the in-flight body was missing).
-- ERRORS RMQ_FENCED when the fencing token is not the slot owner's.
local policy = policy_from(ARG.policy)
if fenced(ARG.fence) then
    return fenced_error()
end
local n = ARG.acks
if n == 0 then
    return {}
end
-- One ZMSCORE for the whole batch (Redis 6.2+): most acks are commits, and one command per message would
-- cost more than the commits themselves.
local keys = {}
for i = 1, n do
    local _, key = ARG_acks(i)
    keys[i] = key
end
local leases = redis.call('ZMSCORE', K_PREPARE, unpack(keys))
local results = {}
local committed = {}
for i = 1, n do
    local op, key, token, reason = ARG_acks(i)
    local lease = leases[i]
    local result
    if not lease or tonumber(lease) ~= tonumber(token) then
        result = 'stale'
    elseif op == 'C' then
        committed[#committed + 1] = key
        result = 'committed'
    elseif op == 'U' then
        local env = take_inflight(key)
        result = 'released'
        if redis.call('ZSCORE', K_STORE, key) then
            result = 'merged'
        elseif env then
            local attempts, score, e, rest = env_read(env)
            if attempts ~= nil then
                env = env_write(math.max(attempts - 1, 0), score, e, rest)
            end
            redis.call('ZADD', K_STORE, score or NOW_MS, key)
            redis.call('HSET', K_BODY, key, env)
        end
    else
        result = fail(key, reason, NOW_MS, policy, op == 'D')
    end
    results[i] = result
end
if #committed > 0 then
    redis.call('ZREM', K_PREPARE, unpack(committed))
    redis.call('HDEL', K_INFLIGHT, unpack(committed))
end
return results
