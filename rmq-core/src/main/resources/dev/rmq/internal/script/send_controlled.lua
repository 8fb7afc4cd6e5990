-- send_controlled: adds or merges messages of one slot, with the job controls that send.lua leaves out: a
-- not-before time, FIFO places among equals, a backlog cap, and what a repeated key does other than replace. Java
-- sends a call here instead of send.lua when its topic has FIFO or a cap, or one of its messages has a not-before
-- time or another rule for a repeated key, so that a plain send pays nothing for them.
-- A merge keeps the message's place among equals and the score the type dictates, and replaces the content
-- (payload, headers), the time to live and the not-before time with the latest send's. A send whose key is
-- parked behind its in-flight delivery is added, and merges into the parked message when a poll takes it (see
-- park).
-- What a send of a key known to the slot does is each message's own rule (its `repeated` field):
--   R  replace: merge as above;
--   K  keep the first: a key waiting or parked is left as it is (kept);
--   D  debounce: merge, and a range-merge message is due a range after this send rather than the first;
--   T  throttle: a key accepted within the last window_ms is refused (throttled), even if it was consumed since;
--      otherwise the send goes as R, and the key is marked in throttled until the window has passed.
-- ARGV
--   type            'R' range-merge, 'P' priority, 'F' fixed-time
--   wake_channel    the channel on which idle consumers of the topic are woken
--   slot            the slot index, published on the wake channel
--   max_backlog     the most messages that may wait in this slot, 0 for no cap: a new message past it is refused
--   late_tolerance_ms  how far behind the Redis clock a fixed time may lie and still be taken (due at once)
--   fifo            '1': equals are taken in the order first sent (each message gets its place); '0': by key
--   messages[]      the messages, each:
--     key           the merge key
--     value         R: time range ms (due = now + range, the first due time wins);
--                   P: priority (the latest wins); F: fixed time ms (the latest wins)
--     envelope      the envelope as Java wrote it (see lib.lua): its time to live, and for a priority message
--                   its not-before time (an epoch ms, or when negative a delay), are made absolute here
--     repeated      what a send of a known key does: R, K, D or T, as above
--     window_ms     for T, how long a key accepted stays refused; 0 otherwise
-- RETURNS
--   results[]       one per message, in order; a refused message is not written, the others of the call are.
--                   Each:
--     outcome       one of: added behind merged kept throttled backlog_full too_late
--                   behind: added while a delivery of its key is in flight, which it waits for;
--                   merged: into a waiting message; kept: not written, its key waits or is parked (K);
--                   throttled: not written, its key was accepted within the window (T);
--                   backlog_full: refused, the slot's backlog is full;
--                   too_late: refused, its fixed time lies further behind the Redis clock than the tolerance
--     late_ms       how far behind the Redis clock a fixed time was, 0 when it was ahead
-- ERRORS
--   RMQ_ENVELOPE    an envelope this version does not read
local typ = ARG.type
local tolerance = tonumber(ARG.late_tolerance_ms)
local cap = tonumber(ARG.max_backlog)
local fifo = ARG.fifo == '1'
local waiting = nil
if cap > 0 then
    waiting = redis.call('HLEN', K_BODY) + redis.call('HLEN', K_PARKED)
end

-- The envelope of a send with its times made absolute and, on a FIFO topic, its place.
local function controlled(envelope, score, index)
    local m = env_read(envelope)
    if m == nil then
        return nil
    end
    m.score = score
    if m.expire_at > 0 then
        m.expire_at = NOW_MS + m.expire_at
    end
    if m.not_before < 0 then
        m.not_before = NOW_MS - m.not_before
    end
    if typ ~= 'P' or m.not_before <= NOW_MS then
        m.not_before = 0
    end
    if fifo then
        m.order = order_of(typ, index)
    end
    return m
end

-- Whether a key was accepted within its throttle window. Marks past their window go first, once per call.
local throttle_swept = false
local function throttled(key)
    if not throttle_swept then
        redis.call('ZREMRANGEBYSCORE', K_THROTTLED, '-inf', NOW_MS)
        throttle_swept = true
    end
    return redis.call('ZSCORE', K_THROTTLED, key) ~= false
end

-- Marks a key accepted for window ms. The set lives as long as its latest mark, so that a topic that stops
-- throttling leaves nothing behind.
local function mark_throttled(key, window)
    redis.call('ZADD', K_THROTTLED, NOW_MS + window, key)
    if redis.call('PTTL', K_THROTTLED) < window then
        redis.call('PEXPIRE', K_THROTTLED, window)
    end
end

-- Merges a send (m, its envelope made absolute) into a waiting message; debounce moves a range-merge message's
-- due time to this send's. Returns the new due time when the send moved the message, else nil.
local function merge(key, old, m, debounce)
    local o = env_read(old) or { score = m.score, expire_at = 0 }
    m.order = o.order
    if typ == 'R' and not debounce then
        -- the first due time stays: the store has it (an envelope sent by send.lua carries no score)
        local first = redis.call('ZSCORE', K_STORE, member(o.order, key))
        m.score = first and tonumber(first) or o.score
    end
    local env = env_write(m)
    if m.expire_at > 0 then
        redis.call('ZADD', K_EXPIRY, m.expire_at, key)
    end
    redis.call('HSET', K_BODY, key, env)
    local at = member(m.order, key)
    if typ == 'P' then
        -- a retry's backoff, or an earlier not-before time, ends with the new send
        redis.call('ZREM', K_DELAYED, key)
        if m.not_before > 0 then
            redis.call('ZREM', K_STORE, at)
            redis.call('ZADD', K_DELAYED, m.not_before, key)
            PLACED_DELAYED = true
            return m.not_before
        end
        redis.call('ZADD', K_STORE, m.score, at)
        note_priority(m.score)
        return NOW_MS
    elseif typ == 'F' or debounce then
        redis.call('ZADD', K_STORE, m.score, at)
        return m.score
    end
    return nil
end

local out = { ARG.messages }
local earliest = nil
for i = 1, ARG.messages do
    local key, value, envelope, repeated, window_ms = ARG_messages(i)
    local score = tonumber(value)
    local late = 0
    if typ == 'R' then
        score = NOW_MS + score
    elseif typ == 'F' and score <= NOW_MS then
        late = NOW_MS - score
    end
    local outcome, moved = 'merged', nil
    if late > tolerance then
        -- too late to be a time that was meant: this message only is refused, the rest of the call goes on
        outcome = 'too_late'
    elseif repeated == 'T' and throttled(key) then
        outcome = 'throttled'
    else
        -- what a send leaves out (kept, or refused for a full backlog) is decided before its envelope is read
        local waiting_env = redis.call('HGET', K_BODY, key)
        if repeated == 'K' and (waiting_env or (any_parked() and redis.call('HEXISTS', K_PARKED, key) == 1)) then
            outcome = 'kept'
        elseif not waiting_env and waiting and waiting >= cap then
            outcome = 'backlog_full'
        else
            local m = controlled(envelope, score, i - 1)
            if m == nil then
                return redis.error_reply('RMQ_ENVELOPE the envelope of key "' .. key .. '" is not one this version reads')
            end
            if waiting_env then
                moved = merge(key, waiting_env, m, repeated == 'D')
            else
                outcome = added_as(key)
                if waiting then
                    waiting = waiting + 1
                end
                moved = place(typ, key, env_write(m), m)
            end
            if repeated == 'T' then
                mark_throttled(key, tonumber(window_ms))
            end
        end
    end
    out[2 * i] = outcome
    out[2 * i + 1] = late
    if moved and (earliest == nil or moved < earliest) then
        earliest = moved
    end
end
if earliest ~= nil then
    wake_if_earlier(earliest, ARG.wake_channel, ARG.slot)
end
return out
