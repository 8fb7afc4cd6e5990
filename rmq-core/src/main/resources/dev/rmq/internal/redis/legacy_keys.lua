-- legacy_keys: moves one slot's data from the key names of rmq before its key prefix to the current names.
-- KEYS[1..18]   the slot's keys under the old names, in the order of SlotKeys.NAMES (store, body, ...)
-- KEYS[19..36]  the same keys under the current names; all 36 share one hash tag, so RENAME keeps them on their node
-- ARGV          the most messages to move one by one; then, for the store, delayed, dead and prepare sets, how
--               many at their head earlier calls of this migration left in place (where this call starts reading)
-- RETURNS       { keys renamed, messages moved, left in the store, in delayed, in dead, in flight, parked, 1 when
--               a set was read only in part (another call goes on) else 0, deliveries whose lease still runs }
--
-- A group of keys that belong together (the waiting messages, those in flight, the dead) is renamed whole when the
-- current names hold nothing of it: one RENAME per key, whatever the backlog. Where both names hold some of it (a
-- client of an earlier version went on sending after the first migration), messages move one by one, and one whose
-- key the current names hold already stays where it is. A delivery in flight moves only once its lease ran out: its
-- holder, a consumer of the earlier version, may still run and end it under the old names.
local N = 18
local STORE, BODY, PREPARE, INFLIGHT, DELAYED, DEAD, DEADBODY, WAKE, OWNER, PARKED, EXPIRY, PAUSED, HOLD, RETRY,
      CANCELLED, THROTTLED, SCHEDULES, PROGRESS = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18
local limit = tonumber(ARGV[1])

local function old(i) return KEYS[i] end
local function new(i) return KEYS[N + i] end

if redis.call('EXISTS', unpack(KEYS, 1, N)) == 0 then
    return { 0, 0, 0, 0, 0, 0, 0, 0, 0 }
end

local renamed, moved, more = 0, 0, 0

-- renames the group's old keys when none of its current keys exists; whether it did
local function rename_group(group)
    for _, i in ipairs(group) do
        if redis.call('EXISTS', new(i)) == 1 then
            return false
        end
    end
    for _, i in ipairs(group) do
        if redis.call('EXISTS', old(i)) == 1 then
            redis.call('RENAME', old(i), new(i))
            renamed = renamed + 1
        end
    end
    return true
end

-- a store member is the key, or on a FIFO topic byte 255, 8 bytes of place among equals, then the key (as lib.lua's
-- key_of reads it: this script runs on its own, without the library)
local function key_of(member)
    if string.byte(member, 1) == 255 then
        return string.sub(member, 10)
    end
    return member
end

-- whether the current names hold no waiting, in-flight or parked message of the key
local function free(key)
    return redis.call('HEXISTS', new(BODY), key) == 0 and redis.call('HEXISTS', new(INFLIGHT), key) == 0
        and redis.call('HEXISTS', new(PARKED), key) == 0
end

-- moves a field of an old hash to the same hash under the new names
local function move_field(i, field)
    local value = redis.call('HGET', old(i), field)
    if value then
        redis.call('HSET', new(i), field, value)
        redis.call('HDEL', old(i), field)
    end
end

-- moves a member of an old sorted set, with its score (read when not given), to the set under the new names
local function move_member(i, member, score)
    score = score or redis.call('ZSCORE', old(i), member)
    if score then
        redis.call('ZADD', new(i), score, member)
        redis.call('ZREM', old(i), member)
    end
end

-- moves messages of an old sorted set from rank `skip` on (of those scored up to `max`, when given), with their
-- hash entries under each of `fields` (a function of the key), their entries in the hashes `beside`, and their
-- marks in the sorted sets `indexes`; returns how many stay at its head, including the `skip` earlier calls left
local function move(set, hash, fields, beside, indexes, skip, can_move, max)
    if moved >= limit then
        -- read in a later call, from where this one would have
        more = 1
        return skip
    end
    local rows
    if max then
        rows = redis.call('ZRANGEBYSCORE', old(set), '-inf', max, 'WITHSCORES', 'LIMIT', skip, limit - moved)
    else
        rows = redis.call('ZRANGE', old(set), skip, skip + limit - moved - 1, 'WITHSCORES')
    end
    if #rows / 2 == limit - moved then
        more = 1
    end
    local stayed = skip
    for i = 1, #rows, 2 do
        local member = rows[i]
        local key = key_of(member)
        if can_move(key) then
            move_member(set, member, rows[i + 1])
            for _, field in ipairs(fields(key)) do
                move_field(hash, field)
            end
            for _, i in ipairs(beside) do
                move_field(i, key)
            end
            for _, index in ipairs(indexes) do
                move_member(index, key)
            end
            moved = moved + 1
        else
            stayed = stayed + 1
        end
    end
    return stayed
end

local function the_key(key) return { key } end
-- an in-flight envelope, and the progress its handler reported where versions before the progress hash kept it
-- (byte 255 then the key)
local function delivery(key) return { key, '\255' .. key } end
local function no_delivery(key)
    return redis.call('HEXISTS', new(INFLIGHT), key) == 0 and redis.call('HEXISTS', new(PARKED), key) == 0
end

local left_store, left_delayed, left_dead, left_inflight, left_parked, leased = 0, 0, 0, 0, 0, 0
if not rename_group({ STORE, BODY, DELAYED, EXPIRY, RETRY }) then
    left_store = move(STORE, BODY, the_key, {}, { EXPIRY, RETRY }, tonumber(ARGV[2]), free)
    left_delayed = move(DELAYED, BODY, the_key, {}, { EXPIRY, RETRY }, tonumber(ARGV[3]), free)
end
if not rename_group({ DEAD, DEADBODY }) then
    left_dead = move(DEAD, DEADBODY, the_key, {}, {}, tonumber(ARGV[4]),
        function(key) return redis.call('HEXISTS', new(DEADBODY), key) == 0 end)
end
-- a lease deadline is in microseconds of the Redis clock
local time = redis.call('TIME')
local now_us = time[1] .. string.format('%06d', tonumber(time[2]))
leased = redis.call('ZCOUNT', old(PREPARE), '(' .. now_us, '+inf')
if leased > 0 or not rename_group({ PREPARE, INFLIGHT, PARKED, CANCELLED, PROGRESS }) then
    left_inflight = move(PREPARE, INFLIGHT, delivery, { PROGRESS }, { CANCELLED }, tonumber(ARGV[5]), no_delivery,
        now_us)
    -- a message parked behind a delivery goes where the delivery went, whose ending unparks it
    for _, key in ipairs(redis.call('HKEYS', old(PARKED))) do
        if redis.call('HEXISTS', old(INFLIGHT), key) == 1 then
            -- behind a delivery still under the old names: not left for good
        elseif redis.call('HEXISTS', new(PARKED), key) == 0 then
            move_field(PARKED, key)
        else
            left_parked = left_parked + 1
        end
    end
end

-- keys of the slot as a whole: where both names hold one, the current one stays, with what the old one adds
if not rename_group({ THROTTLED }) then
    redis.call('ZUNIONSTORE', new(THROTTLED), 2, new(THROTTLED), old(THROTTLED), 'AGGREGATE', 'MAX')
    redis.call('DEL', old(THROTTLED))
end
if not rename_group({ SCHEDULES }) then
    local fields = redis.call('HGETALL', old(SCHEDULES))
    for i = 1, #fields, 2 do
        redis.call('HSETNX', new(SCHEDULES), fields[i], fields[i + 1])
    end
    redis.call('DEL', old(SCHEDULES))
end
if not rename_group({ PAUSED }) then
    redis.call('DEL', old(PAUSED))
end
if not rename_group({ HOLD }) then
    -- at most once: a new owner waits for the later of the two batches' leases
    local was, is = tonumber(redis.call('GET', old(HOLD))), tonumber(redis.call('GET', new(HOLD)))
    if was and is and was > is then
        redis.call('RENAME', old(HOLD), new(HOLD))
    else
        redis.call('DEL', old(HOLD))
    end
end
-- an idle consumer's planned poll, and the fencing token: the current consumers' stand. A consumer of an earlier
-- version that finds its token gone gives its slot up, which it could no longer consume anyway
for _, i in ipairs({ WAKE, OWNER }) do
    if not rename_group({ i }) then
        redis.call('DEL', old(i))
    end
end
return { renamed, moved, left_store, left_delayed, left_dead, left_inflight, left_parked, more, leased }
