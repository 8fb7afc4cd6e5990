-- reschedule: gives a waiting (or parked) message a new score: a due time (range-merge, fixed-time) or a
-- priority. A delayed priority message keeps its delay and takes the new priority when it becomes visible. Or,
-- for a priority message, a new not-before time: ahead of the Redis clock it waits in delayed until then (a
-- retry's backoff gives way to it); at or behind it, it competes at once at its priority.
-- ARGV
--   type            'R', 'P' or 'F'
--   key             the message key
--   field           'score' to set the due time or priority; 'not_before' (priority only) to set the not-before
--                   time
--   value           the new due time (epoch ms), priority, or not-before time (epoch ms)
--   wake_channel    the channel on which idle consumers of the topic are woken
--   slot            the slot index, published on the wake channel
--   late_tolerance_ms  how far behind the Redis clock a new fixed time may lie and still be taken (due at once)
-- RETURNS
--   outcome         one of: changed not_found too_late
--                   changed: a waiting message took the new value; not_found: none waits with the key;
--                   too_late: refused, a fixed time further behind the Redis clock than the tolerance
--   late_ms         how far behind the Redis clock the new fixed time lies, 0 when it is ahead
local key, value = ARG.key, tonumber(ARG.value)
local tolerance = tonumber(ARG.late_tolerance_ms)
local late = ARG.type == 'F' and math.max(0, NOW_MS - value) or 0
if late > tolerance then
    return { 'too_late', late }
end
local hash = K_BODY
local env = redis.call('HGET', K_BODY, key)
if not env then
    hash = K_PARKED
    env = redis.call('HGET', K_PARKED, key)
end
local m = env and env_read(env)
if not m then
    return { 'not_found', late }
end
if ARG.field == 'not_before' then
    m.not_before = value > NOW_MS and value or 0
    redis.call('HSET', hash, key, env_write(m))
    if hash == K_BODY then
        local at = member(m.order, key)
        redis.call('ZREM', K_DELAYED, key)
        redis.call('ZREM', K_STORE, at)
        if m.not_before > 0 then
            redis.call('ZADD', K_DELAYED, m.not_before, key)
            PLACED_DELAYED = true
        else
            redis.call('ZADD', K_STORE, m.score, at)
            note_priority(m.score)
        end
        if m.attempts > 0 then
            -- a message that failed before counts as retrying while it waits, and is due again at its new time
            redis.call('ZADD', K_RETRY, math.max(NOW_MS, m.not_before), key)
        end
        wake_if_earlier(math.max(NOW_MS, m.not_before), ARG.wake_channel, ARG.slot)
    end
    return { 'changed', 0 }
end
m.score = value
redis.call('HSET', hash, key, env_write(m))
if hash == K_PARKED then
    return { 'changed', late }
end
local at = member(m.order, key)
if redis.call('ZSCORE', K_STORE, at) then
    redis.call('ZADD', K_STORE, value, at)
    if ARG.type == 'P' then
        note_priority(value)
    elseif m.attempts > 0 then
        -- a message that failed before is due again at its new time, which the retry index counts by
        redis.call('ZADD', K_RETRY, ARG.value, key)
    end
    wake_if_earlier(ARG.type == 'P' and NOW_MS or value, ARG.wake_channel, ARG.slot)
end
return { 'changed', late }
