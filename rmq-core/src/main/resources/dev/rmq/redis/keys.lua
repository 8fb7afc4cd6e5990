-- keys: operations on one message by its key.
-- KEYS: the slot keys (see lib.lua)
-- ARGV[1] op, ARGV[2] type ('R', 'P' or 'F'), ARGV[3] key, ARGV[4] value, ARGV[5] wake channel, ARGV[6] slot index
--   'get'        -> {state, score, envelope} or an empty list; state is 'waiting', 'retrying', 'in-flight' or 'dead';
--                   score: due ms or priority (waiting), retry-at ms (retrying), lease deadline µs (in-flight), death ms (dead)
--   'cancel'     -> 1 when a waiting or retrying message was removed, else 0 (in-flight and dead ones are left)
--   'reschedule' -> 1 when a waiting message took the new value (due ms for R and F, priority for P), else 0
-- Errors: RMQ_PAST when a fixed-time message is rescheduled to a time not after the Redis clock.
local op, typ, key = ARGV[1], ARGV[2], ARGV[3]

if op == 'get' then
    -- where a message can be, in the order it moves through them: its state, its sorted set, its body hash
    local places = {
        { 'waiting', K_STORE, K_BODY },
        { 'retrying', K_RETRY, K_BODY },
        { 'in-flight', K_PREPARE, K_INFLIGHT },
        { 'dead', K_DEAD, K_DEADBODY },
    }
    for _, place in ipairs(places) do
        local score = redis.call('ZSCORE', place[2], key)
        if score then
            return { place[1], score, redis.call('HGET', place[3], key) }
        end
    end
    return {}
elseif op == 'cancel' then
    local removed = redis.call('ZREM', K_STORE, key) + redis.call('ZREM', K_RETRY, key)
    if removed > 0 then
        redis.call('HDEL', K_BODY, key)
        return 1
    end
    return 0
elseif op == 'reschedule' then
    local value = tonumber(ARGV[4])
    if typ == 'F' and value <= NOW_MS then
        return redis.error_reply('RMQ_PAST fixedTime ' .. ARGV[4] .. ' of key "' .. key
            .. '" is not after the Redis clock (' .. NOW_MS .. ' ms)')
    end
    if not redis.call('ZSCORE', K_STORE, key) then
        return 0
    end
    redis.call('ZADD', K_STORE, value, key)
    if typ == 'P' then
        wake_if_earlier(NOW_MS, ARGV[5], ARGV[6])
    else
        wake_if_earlier(value, ARGV[5], ARGV[6])
    end
    return 1
end
return redis.error_reply('RMQ_BAD_OP unknown key operation ' .. tostring(op))
