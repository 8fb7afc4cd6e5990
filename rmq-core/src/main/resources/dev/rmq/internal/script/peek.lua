-- peek: a page of the slot's waiting messages in the order a poll would take them, or of its in-flight ones by
-- lease deadline, without taking anything.
-- ARGV
--   type            'R' range-merge, 'P' priority, 'F' fixed-time
--   what            'W' waiting messages: the store in consume order (earliest due, or highest priority, first),
--                   then, on a priority topic, those not visible yet by when they become visible; 'I' in flight
--   order           'F' the order above (first taken first); 'N' newest first, the reverse: on a priority topic the
--                   messages not visible yet, the last to become visible first, then the store from the lowest
--                   priority; otherwise the latest due first. In flight ('I') is always by lease deadline
--   offset          the first entry, from 0
--   count           the most entries
-- RETURNS
--   entries[]       the page, in order, each:
--     state         one of: waiting delayed retrying in-flight
--                   waiting: in the store, its attempts tell a retry; delayed: a priority message not visible
--                   yet; retrying: it failed, and waits out its backoff (a priority message not visible yet,
--                   or a time-based one due again later)
--     key           its key
--     score         due ms or priority (waiting), visible-at ms (delayed, retrying), lease deadline µs (in flight)
--     envelope      its envelope
--     progress      in flight, what its handler last reported ('percent:reported ms:note', see progress.lua);
--                   '' when it reported nothing, and for a waiting message
local offset, count = tonumber(ARG.offset), tonumber(ARG.count)
local out = { 0 }

local function add(state, key, score, env, progress)
    if env then
        local failed = string.byte(env, 1) == ENV_VERSION and struct.unpack('>H', env, 3) > 0
        if failed and (state == 'delayed' or (state == 'waiting' and ARG.type ~= 'P' and tonumber(score) > NOW_MS)) then
            state = 'retrying'
        end
        out[#out + 1] = state
        out[#out + 1] = key
        out[#out + 1] = score
        out[#out + 1] = env
        out[#out + 1] = progress or ''
        out[1] = out[1] + 1
    end
end

local function page(set, hash, from, n, reverse, state)
    if n <= 0 then
        return
    end
    local entries
    if reverse then
        entries = redis.call('ZREVRANGE', set, from, from + n - 1, 'WITHSCORES')
    else
        entries = redis.call('ZRANGE', set, from, from + n - 1, 'WITHSCORES')
    end
    if #entries == 0 then
        return
    end
    local keys = {}
    for i = 1, #entries, 2 do
        keys[#keys + 1] = key_of(entries[i])
    end
    local values = redis.call('HMGET', hash, unpack(keys))
    -- each delivery's progress beside its envelope
    local progress = hash == K_INFLIGHT and redis.call('HMGET', K_PROGRESS, unpack(keys)) or {}
    for i = 1, #keys do
        add(state, keys[i], entries[2 * i], values[i], progress[i])
    end
end

if ARG.what == 'I' then
    page(K_PREPARE, K_INFLIGHT, offset, count, false, 'in-flight')
    return out
end
local priority = ARG.type == 'P'
if ARG.order == 'N' then
    if priority then
        local delayed = redis.call('ZCARD', K_DELAYED)
        page(K_DELAYED, K_BODY, offset, math.min(count, delayed - offset), true, 'delayed')
        page(K_STORE, K_BODY, math.max(0, offset - delayed), count - out[1], false, 'waiting')
    else
        page(K_STORE, K_BODY, offset, count, true, 'waiting')
    end
    return out
end
local stored = redis.call('ZCARD', K_STORE)
page(K_STORE, K_BODY, offset, math.min(count, stored - offset), priority, 'waiting')
if priority then
    local from = math.max(0, offset - stored)
    page(K_DELAYED, K_BODY, from, count - out[1], false, 'delayed')
end
return out
