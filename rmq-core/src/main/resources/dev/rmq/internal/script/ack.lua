-- ack: ends in-flight deliveries of one slot. A message parked behind a delivery that ends joins the waiting
-- messages, and idle consumers are woken for it.
-- ARGV
--   policy{}        the topic's retry policy, for the deliveries that failed
--   fence           the worker's fencing token ('' when unfenced)
--   wake_channel    the channel on which idle consumers of the topic are woken
--   slot            the slot index, published on the wake channel
--   acks[]          the deliveries to end, each:
--     op            'C' commit, 'R' roll back (retry after backoff, or dead after the maximum retries),
--                   'N' retry now (no backoff; an attempt all the same, so the maximum retries hold),
--                   'D' dead at once (the handler said so), 'X' dead at once (the message cannot be decoded),
--                   'U' release unstarted (back to waiting at its place, the delivery not counted)
--     key           the message key
--     token         the lease deadline the delivery was given; a different one means the lease was lost
--     reason        why it failed ('' on commit)
-- RETURNS
--   results[]       one per ack, in order, each:
--     outcome       one of: committed retry dead expired merged released stale gone
--                   expired: its time to live ran out, so it is not retried; merged: a newer send of the key
--                   already waits; stale: the lease was lost, nothing done; gone: the in-flight body was missing
-- ERRORS
--   RMQ_FENCED      the fencing token is not the slot owner's
local policy = policy_from(ARG.policy)
local typ = policy.type
if fenced(ARG.fence) then
    return fenced_error()
end
local n = ARG.acks
if n == 0 then
    return { 0 }
end

-- Puts an unstarted delivery back to waiting at its place, its attempt not counted.
local function release(key)
    local env = take_inflight(key)
    if redis.call('HEXISTS', K_BODY, key) == 1 or unpark(typ, key) then
        return 'merged'
    end
    if env then
        local m = env_read(env)
        if m then
            m.attempts = math.max(m.attempts - 1, 0)
            m.not_before = 0
            place(typ, key, env_write(m), m)
            if m.attempts > 0 then
                -- a retry handed back unstarted is still a retry
                redis.call('ZADD', K_RETRY, NOW_MS, key)
            end
        else
            place(typ, key, env, { score = NOW_MS, expire_at = 0, not_before = 0 })
        end
    end
    return 'released'
end

-- One ZMSCORE for the whole batch (Redis 6.2+): most acks are commits, and one command per message would
-- cost more than the commits themselves.
local keys = {}
for i = 1, n do
    local _, key = ARG_acks(i)
    keys[i] = key
end
local leases = redis.call('ZMSCORE', K_PREPARE, unpack(keys))
local results = { n }
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
        result = release(key)
    else
        result = fail(key, reason, policy, op)
    end
    results[i + 1] = result
end
if #committed > 0 then
    redis.call('ZREM', K_PREPARE, unpack(committed))
    redis.call('HDEL', K_INFLIGHT, unpack(committed))
    if any_parked() then
        for _, key in ipairs(committed) do
            unpark(typ, key)
        end
    end
end
if UNPARKED_DUE or PLACED_TOP then
    wake_if_earlier(UNPARKED_DUE or NOW_MS, ARG.wake_channel, ARG.slot)
end
return results
