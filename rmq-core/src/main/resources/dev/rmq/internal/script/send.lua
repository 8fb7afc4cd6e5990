-- send: adds or merges messages of one slot.
-- A merge keeps the message's place among equals and the score the type dictates, and replaces the content
-- (payload, headers), the time to live and the not-before time with the latest send's. A send whose key waits
-- parked behind its in-flight delivery merges into the parked message the same way.
-- ARGV
--   type            'R' range-merge, 'P' priority, 'F' fixed-time
--   wake_channel    the channel on which idle consumers of the topic are woken
--   slot            the slot index, published on the wake channel
--   max_backlog     the most messages that may wait in this slot, 0 for no cap: a new message past it is refused
--   late_tolerance_ms  how far behind the Redis clock a fixed time may lie and still be taken (due at once)
--   messages[]      the messages, each:
--     key           the merge key
--     value         R: time range ms (due = now + range, the first due time wins);
--                   P: priority (the latest wins); F: fixed time ms (the latest wins)
--     ttl_ms        how long the message may wait before it is delivered, 0 for ever
--     not_before_ms P: the message is invisible until this time (epoch ms), or, when negative, for that many ms
--                   from now; 0 for at once, and for the other types
--     content       headers and payload (see the envelope in lib.lua)
-- RETURNS two integers per message, in order: what became of it (0 added, 1 merged into a waiting message,
--   2 refused because the slot's backlog is full) and how late a fixed time was (ms behind the Redis clock,
--   0 when it was ahead).
-- ERRORS RMQ_PAST when a fixed time lies further behind the Redis clock than the tolerance; nothing of the
--   call is written then.
local typ = ARG.type

if typ == 'F' then
    local tolerance = tonumber(ARG.late_tolerance_ms)
    for i = 1, ARG.messages do
        local key, value = ARG_messages(i)
        if tonumber(value) < NOW_MS - tolerance then
            return redis.error_reply('RMQ_PAST fixedTime ' .. value .. ' of key "' .. key .. '" is '
                .. (NOW_MS - tonumber(value)) .. ' ms behind the Redis clock (' .. NOW_MS .. ' ms), more than the'
                .. ' late tolerance of ' .. tolerance .. ' ms; nothing of this batch was sent')
        end
    end
end

local cap = tonumber(ARG.max_backlog)
local waiting = nil
if cap > 0 then
    waiting = redis.call('HLEN', K_BODY) + redis.call('HLEN', K_PARKED)
end

-- Merges a send into a waiting message (in body) or a parked one (in parked, when old came from there).
-- Returns the new due time when the send moved the message, else nil.
local function merge(key, old, parked, score, not_before, expire_at, content, index)
    local o = env_read(old) or { score = score, order = order_of(typ, index), expire_at = 0 }
    if typ == 'R' then
        score = o.score
    end
    local env = env_new(score, o.order, expire_at, not_before, content)
    if expire_at > 0 then
        redis.call('ZADD', K_EXPIRY, expire_at, key)
    elseif o.expire_at > 0 then
        redis.call('ZREM', K_EXPIRY, key)
    end
    if parked then
        redis.call('HSET', K_PARKED, key, env)
        return nil
    end
    redis.call('HSET', K_BODY, key, env)
    if typ == 'P' then
        -- a retry's backoff, or an earlier not-before time, ends with the new send
        redis.call('ZREM', K_DELAYED, key)
        if not_before > 0 then
            redis.call('ZREM', K_STORE, o.order .. key)
            redis.call('ZADD', K_DELAYED, not_before, key)
            return not_before
        end
        redis.call('ZADD', K_STORE, score, o.order .. key)
        return NOW_MS
    elseif typ == 'F' then
        redis.call('ZADD', K_STORE, score, o.order .. key)
        return score
    end
    return nil
end

local out = {}
local earliest = nil
local parked_any = any_parked()
for i = 1, ARG.messages do
    local key, value, ttl_ms, not_before_ms, content = ARG_messages(i)
    local score = tonumber(value)
    local due = score
    local not_before = tonumber(not_before_ms)
    if typ == 'R' then
        score = NOW_MS + score
        due = score
    elseif typ == 'P' then
        if not_before < 0 then
            not_before = NOW_MS - not_before
        elseif not_before <= NOW_MS then
            not_before = 0
        end
        due = math.max(NOW_MS, not_before)
    end
    local expire_at = 0
    if ttl_ms ~= '0' then
        expire_at = NOW_MS + tonumber(ttl_ms)
    end
    local late = 0
    if typ == 'F' and score <= NOW_MS then
        late = NOW_MS - score
    end
    local parked = parked_any and redis.call('HGET', K_PARKED, key)
    local code, moved = 1, nil
    if parked then
        merge(key, parked, true, score, not_before, expire_at, content, i - 1)
    else
        local order = order_of(typ, i - 1)
        local env = env_new(score, order, expire_at, not_before, content)
        if waiting and waiting >= cap and redis.call('HEXISTS', K_BODY, key) == 0 then
            code = 2
        elseif redis.call('HSETNX', K_BODY, key, env) == 1 then
            code = 0
            if waiting then
                waiting = waiting + 1
            end
            if not_before > 0 then
                redis.call('ZADD', K_DELAYED, not_before, key)
            else
                redis.call('ZADD', K_STORE, score, order .. key)
            end
            if expire_at > 0 then
                redis.call('ZADD', K_EXPIRY, expire_at, key)
            end
            moved = due
        else
            moved = merge(key, redis.call('HGET', K_BODY, key), false, score, not_before, expire_at, content, i - 1)
        end
    end
    out[2 * i - 1] = code
    out[2 * i] = late
    if moved and (earliest == nil or moved < earliest) then
        earliest = moved
    end
end
if earliest ~= nil then
    wake_if_earlier(earliest, ARG.wake_channel, ARG.slot)
end
return out
