-- fence_take: makes a worker the slot's owner, which fences out whoever held it before.
-- The hold-off is how long the latest lease in prepare (or of a delivery cancelled in flight, or an at-most-once
-- batch's, in hold) still runs.
-- A worker that lost the slot without releasing it (it died, paused or lost its session) may still be running a handler; it can no longer
-- extend a lease, poll or acknowledge, so once those leases are over the new owner may poll without
-- running beside it. This holds even when an owner in between released cleanly: it never polled, so the
-- leases in prepare are still the cut-off worker's.
-- A token may end with '#' and sixteen hex digits: the order of the claim that made it. A take that comes after a
-- later claim's (a claim whose owner znode went with its session while this call was on its way, and the slot was
-- claimed again meanwhile) writes nothing: that later owner is not fenced out.
-- ARGV
--   token           the new owner's fencing token
-- RETURNS
--   previous        the previous owner's token, '' when the slot was released cleanly or never owned; when
--                   superseded, the token of the later claim that holds the slot
--   hold_ms         how long the new owner waits before its first poll
--   superseded      1 when a later claim holds the slot and nothing was written, else 0
local ORDER = '#(' .. string.rep('%x', 16) .. ')$'
-- Whether order a comes after order b, as numbers: two halves of 8 hex digits each stay exact in a Lua number,
-- and a comparison of the texts would follow the server's collation locale
local function after(a, b)
    local a_high, b_high = tonumber(string.sub(a, 1, 8), 16), tonumber(string.sub(b, 1, 8), 16)
    if a_high ~= b_high then
        return a_high > b_high
    end
    return tonumber(string.sub(a, 9), 16) > tonumber(string.sub(b, 9), 16)
end

local previous = redis.call('GET', K_OWNER) or ''
local mine, theirs = string.match(ARG.token, ORDER), string.match(previous, ORDER)
if mine and theirs and after(theirs, mine) then
    return { previous, 0, 1 }
end
redis.call('SET', K_OWNER, ARG.token)
local hold = 0
local latest = redis.call('ZREVRANGE', K_PREPARE, 0, 0, 'WITHSCORES')
if latest[2] then
    hold = math.max(0, math.ceil(tonumber(latest[2]) / 1000) - NOW_MS)
end
-- a delivery cancelled in flight left prepare, but its handler may still run until its lease would have ended
local cancelled = redis.call('ZREVRANGE', K_CANCELLED, 0, 0, 'WITHSCORES')
if cancelled[2] then
    hold = math.max(hold, math.ceil(tonumber(cancelled[2]) / 1000) - NOW_MS)
end
-- an at-most-once batch holds no leases; its deadline stands in for them
local batch = redis.call('GET', K_HOLD)
if batch then
    hold = math.max(hold, math.ceil(tonumber(batch) / 1000) - NOW_MS)
end
return { previous, hold, 0 }
