-- ack: ends in-flight deliveries of one slot.
-- KEYS: the slot keys (see lib.lua)
-- ARGV[1..7] retry policy (see policy_from in lib.lua), ARGV[8] fencing token ('' when unfenced), ARGV[9] n
-- then n quadruples: op, key, token, error
--   op: 'C' commit, 'R' roll back (retry after backoff, or dead after the maximum retries),
--       'D' dead at once (the message cannot be decoded or the handler said so),
--       'U' release unstarted (back to waiting at its score, the delivery not counted)
--   token: the lease deadline the delivery was given; a different one means the lease was lost.
-- Returns: n results: 'committed', 'retry', 'dead', 'merged', 'released' or 'stale' (lease lost, nothing done).
-- Errors: RMQ_FENCED when the fencing token is not the slot owner's.
local policy = policy_from(ARGV, 1)
if fenced(ARGV[8]) then
    return redis.error_reply('RMQ_FENCED the slot is owned by another worker')
end
local n = tonumber(ARGV[9])
if n == 0 then
    return {}
end
-- One ZMSCORE for the whole batch (Redis 6.2+): most acks are commits, and one command per message would
-- cost more than the commits themselves.
local keys = {}
for i = 0, n - 1 do
    keys[i + 1] = ARGV[11 + 4 * i]
end
local leases = redis.call('ZMSCORE', K_PREPARE, unpack(keys))
local results = {}
local committed = {}
for i = 0, n - 1 do
    local base = 10 + 4 * i
    local op, key, token, err = ARGV[base], ARGV[base + 1], ARGV[base + 2], ARGV[base + 3]
    local lease = leases[i + 1]
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
        result = fail(key, err, NOW_MS, policy, op == 'D')
    end
    results[i + 1] = result
end
if #committed > 0 then
    redis.call('ZREM', K_PREPARE, unpack(committed))
    redis.call('HDEL', K_INFLIGHT, unpack(committed))
end
return results
