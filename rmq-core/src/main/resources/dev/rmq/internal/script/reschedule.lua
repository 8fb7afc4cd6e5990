-- reschedule: gives a waiting (or parked) message a new score: a due time (range-merge, fixed-time) or a
-- priority. A delayed priority message keeps its delay and takes the new priority when it becomes visible.
-- ARGV
--   type            'R', 'P' or 'F'
--   key             the message key
--   value           the new due time (epoch ms) or priority
--   wake_channel    the channel on which idle consumers of the topic are woken
--   slot            the slot index, published on the wake channel
--   late_tolerance_ms  how far behind the Redis clock a new fixed time may lie and still be taken (due at once)
-- RETURNS
--   changed         1 when a waiting message took the new value, else 0
-- ERRORS
--   RMQ_PAST        a fixed-time message rescheduled further behind the Redis clock than the tolerance
local key, value = ARG.key, tonumber(ARG.value)
local tolerance = tonumber(ARG.late_tolerance_ms)
if ARG.type == 'F' and value < NOW_MS - tolerance then
    return redis.error_reply('RMQ_PAST fixedTime ' .. ARG.value .. ' of key "' .. key .. '" is '
        .. (NOW_MS - value) .. ' ms behind the Redis clock (' .. NOW_MS .. ' ms), more than the late tolerance of '
        .. tolerance .. ' ms')
end
local hash = K_BODY
local env = redis.call('HGET', K_BODY, key)
if not env then
    hash = K_PARKED
    env = redis.call('HGET', K_PARKED, key)
end
local m = env and env_read(env)
if not m then
    return { 0 }
end
m.score = value
redis.call('HSET', hash, key, env_write(m))
if hash == K_PARKED then
    return { 1 }
end
local at = member(m.order, key)
if redis.call('ZSCORE', K_STORE, at) then
    redis.call('ZADD', K_STORE, value, at)
    wake_if_earlier(ARG.type == 'P' and NOW_MS or value, ARG.wake_channel, ARG.slot)
end
return { 1 }
