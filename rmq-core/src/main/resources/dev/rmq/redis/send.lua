-- send: adds or merges messages of one slot.
-- KEYS: the slot keys (see lib.lua)
-- ARGV[1] type: 'R' range-merge, 'P' priority, 'F' fixed-time
-- ARGV[2] wake channel, ARGV[3] slot index, ARGV[4] n
-- then n triples: key, value, envelope
--   value: R = time range ms (due = now + range, the first due time wins);
--          P = priority (the latest wins); F = fixed time ms (the latest wins, must be after now)
-- A merge keeps the score the type dictates and replaces envelope (payload, headers) with the latest.
-- Returns: n integers, 1 where the message merged into a waiting one, 0 where it was added.
-- Errors: RMQ_PAST when a fixed time is not after the Redis clock; nothing is written then.
local typ, channel, slot, n = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])

if typ == 'F' then
    for i = 0, n - 1 do
        local at = tonumber(ARGV[6 + 3 * i])
        if at <= NOW_MS then
            return redis.error_reply('RMQ_PAST fixedTime ' .. ARGV[6 + 3 * i] .. ' of key "' .. ARGV[5 + 3 * i]
                .. '" is not after the Redis clock (' .. NOW_MS .. ' ms); nothing of this batch was sent')
        end
    end
end

local merged = {}
local earliest = nil
for i = 0, n - 1 do
    local key, value, env = ARGV[5 + 3 * i], tonumber(ARGV[6 + 3 * i]), ARGV[7 + 3 * i]
    local added, due
    if typ == 'R' then
        due = NOW_MS + value
        added = redis.call('ZADD', K_STORE, 'NX', due, key)
    else
        added = redis.call('ZADD', K_STORE, value, key)
        if typ == 'P' then
            due = NOW_MS
            if added == 1 and redis.call('ZREM', K_RETRY, key) == 1 then
                added = 0
            end
        else
            due = value
        end
    end
    redis.call('HSET', K_BODY, key, env)
    merged[i + 1] = 1 - added
    if (added == 1 or typ ~= 'R') and (earliest == nil or due < earliest) then
        earliest = due
    end
end
if earliest ~= nil then
    wake_if_earlier(earliest, channel, slot)
end
return merged
