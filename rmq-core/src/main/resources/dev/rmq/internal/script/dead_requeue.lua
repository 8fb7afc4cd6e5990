-- dead_requeue: puts one dead message back to waiting, from attempt 0 and without its time to live: due now,
-- or at its priority.
-- ARGV
--   type            'R', 'P' or 'F'
--   key             the message key
--   wake_channel    the channel on which idle consumers of the topic are woken
--   slot            the slot index, published on the wake channel
-- RETURNS
--   outcome         one of: requeued superseded not_dead
--                   superseded: dropped, a newer message with the key already waits or is in flight
--   envelope        the envelope it waits with when requeued, for a journal to record it; '' otherwise
local result, placed = requeue_dead(ARG.type, ARG.key)
if result == 1 then
    wake_if_earlier(NOW_MS, ARG.wake_channel, ARG.slot)
end
return { result == 1 and 'requeued' or result == 2 and 'superseded' or 'not_dead', placed or '' }
