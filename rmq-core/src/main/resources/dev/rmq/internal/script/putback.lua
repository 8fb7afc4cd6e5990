-- putback: returns messages that an at-most-once consumer took and never started (it is stopping) to
-- waiting, at their place, the delivery not counted. A message whose key was sent again meanwhile is dropped:
-- the newer one waits already.
-- ARGV
--   type            'R', 'P' or 'F'
--   wake_channel    the channel on which idle consumers of the topic are woken
--   slot            the slot index, published on the wake channel
--   messages[]      the messages, each:
--     key           the message key
--     envelope      the envelope as the poll returned it
-- RETURNS
--   results[]       one per message, in order, each:
--     outcome       one of: back superseded
--                   back: waiting again; superseded: dropped, a newer message with the key waits
local typ = ARG.type
local results = { ARG.messages }
local earliest = nil
for i = 1, ARG.messages do
    local key, envelope = ARG_messages(i)
    local m = env_read(envelope)
    if redis.call('HEXISTS', K_BODY, key) == 1 or (any_parked() and redis.call('HEXISTS', K_PARKED, key) == 1) then
        results[i + 1] = 'superseded'
    else
        if m then
            m.attempts = math.max(m.attempts - 1, 0)
            m.not_before = 0
            envelope = env_write(m)
        else
            m = { score = NOW_MS, expire_at = 0, not_before = 0 }
        end
        local due = place(typ, key, envelope, m)
        if earliest == nil or due < earliest then
            earliest = due
        end
        results[i + 1] = 'back'
    end
end
if earliest then
    wake_if_earlier(earliest, ARG.wake_channel, ARG.slot)
end
return results
