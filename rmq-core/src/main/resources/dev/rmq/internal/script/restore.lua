-- restore: puts back messages that Redis lost, each only when the slot holds no message of its key, waiting,
-- retrying, parked, in flight or dead: so a restore run twice, or while nothing was lost, writes nothing. A
-- message whose time to live ran out by the Redis clock ends as one that Redis had kept would have: in the dead
-- queue (reason expired), or dropped, as the topic's expiry action says.
-- ARGV
--   policy{}        the topic's retry policy: its type, and its expiry action and dead capacity for the expired
--   wake_channel    the channel on which idle consumers of the topic are woken
--   slot            the slot index, published on the wake channel
--   fifo            '1' on a FIFO topic: a restored message takes a new place, behind the equals already waiting
--   dry_run         '1': nothing is written; each outcome says what a restore would do
--   messages[]      the messages, each:
--     key           the message key
--     envelope      its envelope with absolute times and its attempts so far (Envelope.encodeStored); a due time
--                   in the past makes it due at once
-- RETURNS
--   results[]       one per message, in order, each:
--     outcome       one of: restored present expired
--                   present: the slot holds a message of its key, and nothing was written; expired: its time to
--                   live had run out, and it went to the dead queue or was dropped, as the policy says
-- ERRORS
--   RMQ_ENVELOPE    bytes that are not an envelope this version reads; nothing of the call is written
local policy = policy_from(ARG.policy)
local typ = policy.type
for i = 1, ARG.messages do
    local key, envelope = ARG_messages(i)
    if not env_read(envelope) then
        return redis.error_reply('RMQ_ENVELOPE the envelope of key "' .. key .. '" is not one this version reads')
    end
end
-- Puts back one message the slot holds nothing of; returns what became of it, and when it waits, its due time.
local function put_back(i, key, envelope)
    local m = env_read(envelope)
    if m.expire_at > 0 and m.expire_at <= NOW_MS then
        expire(key, envelope, policy)
        return 'expired', nil
    end
    if ARG.fifo == '1' then
        m.order = order_of(typ, i - 1)
        envelope = env_write(m)
    end
    local due = place(typ, key, envelope, m)
    if m.attempts > 0 then
        -- the retry index: counted as retrying while its due time is ahead, as a message waiting out its backoff
        redis.call('ZADD', K_RETRY, due, key)
    end
    return 'restored', due
end

local out = { ARG.messages }
local earliest = nil
for i = 1, ARG.messages do
    local key, envelope = ARG_messages(i)
    if redis.call('HEXISTS', K_BODY, key) == 1 or redis.call('HEXISTS', K_INFLIGHT, key) == 1
            or redis.call('HEXISTS', K_PARKED, key) == 1 or redis.call('HEXISTS', K_DEADBODY, key) == 1 then
        out[i + 1] = 'present'
    elseif ARG.dry_run == '1' then
        local expire_at = env_read(envelope).expire_at
        out[i + 1] = (expire_at > 0 and expire_at <= NOW_MS) and 'expired' or 'restored'
    else
        local outcome, due = put_back(i, key, envelope)
        out[i + 1] = outcome
        if due and (earliest == nil or due < earliest) then
            earliest = due
        end
    end
end
if earliest ~= nil then
    if redis.call('EXISTS', K_WAKE) == 0 then
        -- the wake key went with what Redis lost, and the polls the consumers planned cannot be seen: wake them
        redis.call('PUBLISH', ARG.wake_channel, ARG.slot)
    else
        wake_if_earlier(earliest, ARG.wake_channel, ARG.slot)
    end
end
return out
