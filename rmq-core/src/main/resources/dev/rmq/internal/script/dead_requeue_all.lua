-- dead_requeue_all: puts the oldest dead messages back to waiting, as dead_requeue does one.
-- ARGV
--   type            'R', 'P' or 'F'
--   limit           the most messages to move in this call (call again until it returns 0)
--   wake_channel    the channel on which idle consumers of the topic are woken
--   slot            the slot index, published on the wake channel
--   report          '1': list the messages requeued, for a journal to record them; '0': count them only
-- RETURNS
--   taken           the number of dead messages taken, at most the limit
--   requeued[]      with report, the messages that wait again (not those a newer message of their key replaced),
--                   each:
--     key           the message key
--     envelope      the envelope it waits with
local keys = redis.call('ZRANGE', K_DEAD, 0, tonumber(ARG.limit) - 1)
local requeued = {}
local report = ARG.report == '1'
for _, key in ipairs(keys) do
    local result, placed = requeue_dead(ARG.type, key)
    if report and result == 1 then
        requeued[#requeued + 1] = key
        requeued[#requeued + 1] = placed
    end
end
if #keys > 0 then
    wake_if_earlier(NOW_MS, ARG.wake_channel, ARG.slot)
end
local out = { #keys, #requeued / 2 }
for i = 1, #requeued do
    out[#out + 1] = requeued[i]
end
return out
