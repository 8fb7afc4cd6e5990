-- restore: puts back messages that Redis lost, each only when the slot holds no message of its key, waiting,
-- retrying, parked, in flight or dead: so a restore run twice, or while nothing was lost, writes nothing.
-- ARGV
--   type            'R' range-merge, 'P' priority, 'F' fixed-time
--   wake_channel    the channel on which idle consumers of the topic are woken
--   slot            the slot index, published on the wake channel
--   fifo            '1' on a FIFO topic: a restored message takes a new place, behind the equals already waiting
--   messages[]      the messages, each:
--     key           the message key
--     envelope      its envelope with absolute times and its attempts so far (Envelope.encodeStored); a due time
--                   in the past makes it due at once
-- RETURNS one integer per message, in order: 0 restored, 1 present (nothing written).
-- ERRORS RMQ_ENVELOPE for bytes that are not an envelope this version reads; nothing of the call is written.
local typ = ARG.type
for i = 1, ARG.messages do
    local key, envelope = ARG_messages(i)
    if not env_read(envelope) then
        return redis.error_reply('RMQ_ENVELOPE the envelope of key "' .. key .. '" is not one this version reads')
    end
end
local out = {}
local earliest = nil
for i = 1, ARG.messages do
    local key, envelope = ARG_messages(i)
    if redis.call('HEXISTS', K_BODY, key) == 1 or redis.call('HEXISTS', K_INFLIGHT, key) == 1
            or redis.call('HEXISTS', K_PARKED, key) == 1 or redis.call('HEXISTS', K_DEADBODY, key) == 1 then
        out[i] = 1
    else
        local m = env_read(envelope)
        if ARG.fifo == '1' then
            m.order = order_of(typ, i - 1)
            envelope = env_write(m)
        end
        local due = place(typ, key, envelope, m)
        if m.attempts > 0 then
            -- counted among the retries, as a message that failed before and waits again
            redis.call('ZADD', K_RETRY, due, key)
        end
        out[i] = 0
        if earliest == nil or due < earliest then
            earliest = due
        end
    end
end
if earliest ~= nil then
    wake_if_earlier(earliest, ARG.wake_channel, ARG.slot)
end
return out
