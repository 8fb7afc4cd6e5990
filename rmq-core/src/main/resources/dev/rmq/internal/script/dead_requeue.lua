-- dead_requeue: puts one dead message back to waiting, from attempt 0 and without its time to live: due now,
-- or at its priority.
-- ARGV
--   type            'R', 'P' or 'F'
--   key             the message key
--   wake_channel    the channel on which idle consumers of the topic are woken
--   slot            the slot index, published on the wake channel
--   replacement     '' to requeue the message as it died; else an envelope whose headers and payload it waits with
--                   instead (a journal's requeue gives it a send id of its own), taken only while the dead message
--                   is the one that died at died_ms, which they were read from
--   died_ms         with a replacement, when the message it replaces died (its score in dead); '' without
-- RETURNS
--   outcome         one of: requeued superseded not_dead
--                   superseded: dropped, a newer message with the key already waits or is in flight
local result = 0
if ARG.replacement == '' then
    result = requeue_dead(ARG.type, ARG.key, nil)
elseif redis.call('ZSCORE', K_DEAD, ARG.key) == ARG.died_ms then
    result = requeue_dead(ARG.type, ARG.key, ARG.replacement)
end
if result == 1 then
    wake_if_earlier(NOW_MS, ARG.wake_channel, ARG.slot)
end
return { result == 1 and 'requeued' or result == 2 and 'superseded' or 'not_dead' }
