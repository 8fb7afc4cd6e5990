-- send: adds or merges messages of one slot.
-- A merge keeps the score the type dictates and replaces the envelope (payload, headers) with the latest.
-- ARGV
--   type            'R' range-merge, 'P' priority, 'F' fixed-time
--   wake_channel    the channel on which idle consumers of the topic are woken
--   slot            the slot index, published on the wake channel
--   messages[]      the messages, each:
--     key           the merge key
--     value         R: time range ms (due = now + range, the first due time wins);
--                   P: priority (the latest wins); F: fixed time ms (the latest wins, must be after now)
--     envelope      the new envelope (see lib.lua)
-- RETURNS one integer per message, in order: 1 merged into a waiting message, 0 added.
-- ERRORS RMQ_PAST when a fixed time is not after the Redis clock; nothing is written then.
local typ = ARG.type

if typ == 'F' then
    for i = 1, ARG.messages do
        local key, value = ARG_messages(i)
        if tonumber(value) <= NOW_MS then
            return redis.error_reply('RMQ_PAST fixedTime ' .. value .. ' of key "' .. key
                .. '" is not after the Redis clock (' .. NOW_MS .. ' ms); nothing of this batch was sent')
        end
    end
end

local merged = {}
local earliest = nil
for i = 1, ARG.messages do
    local key, value, envelope = ARG_messages(i)
    value = tonumber(value)
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
    redis.call('HSET', K_BODY, key, envelope)
    merged[i] = 1 - added
    if (added == 1 or typ ~= 'R') and (earliest == nil or due < earliest) then
        earliest = due
    end
end
if earliest ~= nil then
    wake_if_earlier(earliest, ARG.wake_channel, ARG.slot)
end
return merged
