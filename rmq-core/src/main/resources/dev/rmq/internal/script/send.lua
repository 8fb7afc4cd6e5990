-- send: adds or merges messages of one slot, or of several (below), the common way: no not-before time, no FIFO
-- place and no backlog cap (send_controlled.lua does those, and Java picks it for a call that needs them), so that
-- this script carries no function it does not call: by EVALSHA, Redis runs a script's whole top level on every call. A message's envelope is
-- stored as Java wrote it, only its time to live made absolute. A merge keeps the score the type dictates and
-- replaces the content (payload, headers) and the time to live with the latest send's. A send whose key is parked
-- behind its in-flight delivery is added, and merges into the parked message when a poll takes it (see park). A
-- send of a key that waits at a FIFO place, sent while the topic kept FIFO, merges into it there.
-- A call may carry messages of several slots of one topic, on a Redis that is not a Cluster: each slot's keys come
-- as a block of KEYS (see lib.lua), and its messages one after another, so that senders spread over the slots share
-- a call's fixed cost as those of one slot do.
-- ARGV
--   type            'R' range-merge, 'P' priority, 'F' fixed-time
--   wake_channel    the channel on which idle consumers of the topic are woken
--   slots           the slot index, published on the wake channel, when every message goes to one slot; for several,
--                   a slot index then how many of the messages go to it, for each block of KEYS in turn, separated
--                   by spaces ('3 2 7 1': the first two to slot 3, the next to slot 7)
--   late_tolerance_ms  how far behind the Redis clock a fixed time may lie and still be taken (due at once)
--   messages[]      the messages, each:
--     key           the merge key
--     value         R: time range ms (due = now + range, the first due time wins);
--                   P: priority (the latest wins); F: fixed time ms (the latest wins)
--     envelope      the envelope as Java wrote it (see lib.lua), with at most a time to live, made absolute here
-- RETURNS
--   results[]       one per message, in order, as send_controlled.lua's; a refused message is not written, the
--                   others of the call are. Each:
--     outcome       one of: added behind merged too_late
--                   behind: added while a delivery of its key is in flight, which it waits for; merged: into a
--                   waiting message; too_late: refused, its fixed time lies further behind the Redis clock than
--                   the tolerance
--     late_ms       how far behind the Redis clock a fixed time was, 0 when it was ahead
-- ERRORS
--   RMQ_ENVELOPE    an envelope with a not-before time or a FIFO position, which send_controlled.lua takes
--   RMQ_SLOTS       slots does not fit the messages, or KEYS holds no block for a slot it names; nothing is written
local typ = ARG.type
-- the slot whose keys are bound, and the last message that goes to it
local slot, last = ARG.slots, ARG.messages
-- several slots: their indexes and counts, read before anything is written. One slot's index has at most five
-- digits (16384 slots at most), a list of two slots at least seven characters: its length tells them apart
-- without a call of string.find, which a send of one slot would pay
local parts = nil
if #slot > 5 then
    parts = {}
    local total, counted = 0, true
    for number in string.gmatch(slot, '%S+') do
        parts[#parts + 1] = number
        if #parts % 2 == 0 then
            local count = tonumber(number)
            counted = counted and count ~= nil and count >= 1
            total = total + (count or 0)
        end
    end
    if not counted or #parts % 2 == 1 or total ~= ARG.messages or not slot_block_bound(#parts / 2 - 1) then
        return redis.error_reply('RMQ_SLOTS slots "' .. slot .. '" does not fit ' .. ARG.messages
            .. ' message(s) and ' .. #SLOT_KEYS .. ' key(s)')
    end
    slot, last = parts[1], tonumber(parts[2])
end
local block = 0
-- made at its full size where it can be: a table that grows is made again as it grows
local out = ARG.messages == 1 and { 1, false, false } or { ARG.messages }
local earliest = nil
-- the late tolerance, parsed (a strtod) on first need: only a fixed time that is late reads it
local tolerance = nil
for i = 1, ARG.messages do
    if i > last then
        -- the slot's messages are all written: its consumers are woken, and the next slot's keys bound
        if earliest ~= nil then
            wake_if_earlier(earliest, ARG.wake_channel, slot)
            earliest = nil
        end
        block = block + 1
        begin_slot(block)
        slot, last = parts[2 * block + 1], last + tonumber(parts[2 * block + 2])
    end
    local key, value, envelope = ARG_messages(i)
    local score = tonumber(value)
    local late = 0
    if typ == 'R' then
        score = NOW_MS + score
    elseif typ == 'F' and score <= NOW_MS then
        late = NOW_MS - score
    end
    local outcome, moved = 'merged', nil
    local flags = string.byte(envelope, 2) % 8
    if late > 0 then
        tolerance = tolerance or tonumber(ARG.late_tolerance_ms)
    end
    if late > 0 and late > tolerance then
        -- too late to be a time that was meant: this message only is refused, the rest of the call goes on
        outcome = 'too_late'
    elseif flags > FLAG_EXPIRES then
        return redis.error_reply('RMQ_ENVELOPE the envelope of key "' .. key .. '" has a not-before time or a'
            .. ' FIFO position, which send_controlled.lua takes')
    else
        if flags == FLAG_EXPIRES then
            local expire_at = NOW_MS + struct.unpack('>d', envelope, ENV_FIXED + 1)
            envelope = string.sub(envelope, 1, ENV_FIXED) .. struct.pack('>d', expire_at)
                .. string.sub(envelope, ENV_FIXED + 9)
            redis.call('ZADD', K_EXPIRY, expire_at, key)
        end
        local added
        if typ == 'R' then
            -- the due time as the text of a whole number: Redis would format a number with %.17g (see us_text)
            added = redis.call('ZADD', K_STORE, 'NX', string.format('%d', score), key)
        else
            -- the score's own text: Redis would format the number again (see us_text in lib.lua)
            added = redis.call('ZADD', K_STORE, value, key)
            if typ == 'P' then
                note_priority(score)
            end
            if added == 1 and typ == 'P' and redis.call('ZREM', K_DELAYED, key) == 1 then
                -- it waited out a retry's backoff: the new send ends the wait, and merges into it
                added = 0
            end
        end
        if added == 0 then
            redis.call('HSET', K_BODY, key, envelope)
        elseif redis.call('HSETNX', K_BODY, key, envelope) == 0 then
            -- a new member, yet the key waits: at a FIFO place, sent while the topic kept FIFO. The send merges into
            -- it there, as send_controlled.lua's merge does, instead of waiting twice: it takes the place, and the
            -- score the type dictates. Done here, not by a call of that merge: by EVALSHA every function a script
            -- carries costs each call, and only this rare case needs it
            local waiting = redis.call('HGET', K_BODY, key)
            if string.byte(waiting, 2) % 8 >= FLAG_ORDERED then
                -- the place follows the envelope's fixed part (see member_of and env_read)
                local order = string.sub(waiting, ENV_FIXED + 1, ENV_FIXED + 8)
                redis.call('ZREM', K_STORE, key)
                added = 0
                if typ ~= 'R' then
                    redis.call('ZADD', K_STORE, value, FIFO_MARK .. order .. key)
                end
                envelope = string.sub(envelope, 1, 1) .. string.char(string.byte(envelope, 2) + FLAG_ORDERED)
                    .. string.sub(envelope, 3, ENV_FIXED) .. order .. string.sub(envelope, ENV_FIXED + 1)
            end
            redis.call('HSET', K_BODY, key, envelope)
        end
        outcome = added == 1 and added_as(key) or 'merged'
        if added == 1 or typ ~= 'R' then
            moved = typ == 'P' and NOW_MS or score
        end
    end
    out[2 * i] = outcome
    out[2 * i + 1] = late
    if moved and (earliest == nil or moved < earliest) then
        earliest = moved
    end
end
if earliest ~= nil then
    wake_if_earlier(earliest, ARG.wake_channel, slot)
end
return out
