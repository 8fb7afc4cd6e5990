-- dead: inspects and operates the dead messages of one slot.
-- KEYS: the slot keys (see lib.lua)
-- ARGV[1] op, ARGV[2] type ('R', 'P' or 'F'), ARGV[3] wake channel, ARGV[4] slot index, then op arguments:
--   'list' offset count -> {key1, died_ms1, envelope1, ...}, oldest first
--   'count'             -> the number of dead messages
--   'requeue' key       -> 1 requeued, 2 dropped because a newer message with the key already waits, 0 not dead
--   'requeue-all' limit -> the number of messages moved back (at most limit; call again until 0)
--   'delete' key        -> 1 removed, 0 not dead
--   'purge'             -> the number of dead messages removed
-- A requeued message starts again at attempt 0: due now (time types) or at its priority.
local op, typ, channel, slot = ARGV[1], ARGV[2], ARGV[3], ARGV[4]

local function requeue(key)
    local env = redis.call('HGET', K_DEADBODY, key)
    redis.call('ZREM', K_DEAD, key)
    redis.call('HDEL', K_DEADBODY, key)
    if not env then
        return 0
    end
    if redis.call('ZSCORE', K_STORE, key) then
        return 2
    end
    local attempts, score, _, rest = env_read(env)
    if attempts == nil then
        rest, score = '\0' .. env, 0
    end
    if typ ~= 'P' then
        score = NOW_MS
    end
    redis.call('ZADD', K_STORE, score, key)
    redis.call('HSET', K_BODY, key, env_write(0, score, '', rest))
    return 1
end

if op == 'list' then
    local offset, count = tonumber(ARGV[5]), tonumber(ARGV[6])
    local entries = redis.call('ZRANGE', K_DEAD, offset, offset + count - 1, 'WITHSCORES')
    local out = {}
    for i = 1, #entries, 2 do
        out[#out + 1] = entries[i]
        out[#out + 1] = entries[i + 1]
        out[#out + 1] = redis.call('HGET', K_DEADBODY, entries[i]) or ''
    end
    return out
elseif op == 'count' then
    return redis.call('ZCARD', K_DEAD)
elseif op == 'requeue' then
    local result = requeue(ARGV[5])
    if result == 1 then
        wake_if_earlier(NOW_MS, channel, slot)
    end
    return result
elseif op == 'requeue-all' then
    local keys = redis.call('ZRANGE', K_DEAD, 0, tonumber(ARGV[5]) - 1)
    for _, key in ipairs(keys) do
        requeue(key)
    end
    if #keys > 0 then
        wake_if_earlier(NOW_MS, channel, slot)
    end
    return #keys
elseif op == 'delete' then
    local removed = redis.call('ZREM', K_DEAD, ARGV[5])
    redis.call('HDEL', K_DEADBODY, ARGV[5])
    return removed
elseif op == 'purge' then
    local count = redis.call('ZCARD', K_DEAD)
    redis.call('DEL', K_DEAD, K_DEADBODY)
    return count
end
return redis.error_reply('RMQ_BAD_OP unknown dead-queue operation ' .. tostring(op))
