-- dead_requeue_all: puts the oldest dead messages back to waiting, as dead_requeue does one.
-- ARGV
--   type            'R', 'P' or 'F'
--   limit           the most messages to move in this call (call again until it returns 0)
--   wake_channel    the channel on which idle consumers of the topic are woken
--   slot            the slot index, published on the wake channel
-- RETURNS
--   taken           the number of dead messages taken, at most the limit
local keys = redis.call('ZRANGE', K_DEAD, 0, tonumber(ARG.limit) - 1)
for _, key in ipairs(keys) do
    requeue_dead(ARG.type, key)
end
if #keys > 0 then
    wake_if_earlier(NOW_MS, ARG.wake_channel, ARG.slot)
end
return { #keys }
