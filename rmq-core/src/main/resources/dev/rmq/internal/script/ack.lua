-- ack: ends in-flight deliveries of one slot. A message parked behind a delivery that ends joins the waiting
-- messages; it, a released delivery and a retry are placed after the consumer planned its next poll, so idle
-- consumers are woken for the earliest of them when it comes before that poll.
-- ARGV
--   policy{}        the topic's retry policy, for the deliveries that failed
--   fence           the worker's fencing token ('' when unfenced)
--   wake_channel    the channel on which idle consumers of the topic are woken
--   slot            the slot index, published on the wake channel
--   acks[]          the deliveries to end, each:
--     op            'C' commit, 'R' roll back (retry after backoff, or dead after the maximum retries),
--                   'N' retry now (no backoff; an attempt all the same, so the maximum retries hold),
--                   'D' dead at once (the handler said so), 'X' dead at once (the message cannot be decoded), 'Y' (nor decrypted),
--                   'U' release unstarted (back to waiting at its place, the delivery not counted),
--                   'H' hand back (as 'U', counted as a release: dead once the topic's releases are spent)
--     key           the message key
--     token         the lease deadline the delivery was given; a different one means the lease was lost
--     reason        why it failed, or was handed back ('' on commit)
-- RETURNS
--   results[]       one per ack, in order, each:
--     outcome       one of: committed retry dead expired merged released stale gone cancelled
--                   expired: its time to live ran out, so it is not retried; merged: a newer send of the key
--                   already waits; stale: the lease was lost, nothing done; gone: the in-flight body was missing;
--                   cancelled: a cancel removed the delivery, nothing done
-- ERRORS
--   RMQ_FENCED      the fencing token is not the slot owner's
local policy = policy_from(ARG.policy)
local typ = policy.type
if fenced(ARG.fence) then
    return fenced_error()
end
local results = end_deliveries(typ, policy, ARG.acks, ARG_acks)
if PLACED_DUE or PLACED_TOP then
    wake_if_earlier(PLACED_DUE or NOW_MS, ARG.wake_channel, ARG.slot)
end
table.insert(results, 1, ARG.acks)
return results
