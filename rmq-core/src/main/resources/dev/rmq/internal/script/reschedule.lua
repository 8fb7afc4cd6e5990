-- reschedule: gives a waiting message a new score: a due time (range-merge, fixed-time) or a priority.
-- ARGV
--   type            'R', 'P' or 'F'
--   key             the message key
--   value           the new due time (epoch ms) or priority
--   wake_channel    the channel on which idle consumers of the topic are woken
--   slot            the slot index, published on the wake channel
-- RETURNS 1 when a waiting message took the new value, else 0.
-- ERRORS RMQ_PAST when a fixed-time message is rescheduled to a time not after the Redis clock.
local key, value = ARG.key, tonumber(ARG.value)
if ARG.type == 'F' and value <= NOW_MS then
    return redis.error_reply('RMQ_PAST fixedTime ' .. ARG.value .. ' of key "' .. key
        .. '" is not after the Redis clock (' .. NOW_MS .. ' ms)')
end
if not redis.call('ZSCORE', K_STORE, key) then
    return 0
end
redis.call('ZADD', K_STORE, value, key)
if ARG.type == 'P' then
    wake_if_earlier(NOW_MS, ARG.wake_channel, ARG.slot)
else
    wake_if_earlier(value, ARG.wake_channel, ARG.slot)
end
return 1
