-- fence: the slot owner's fencing token, written by ZooKeeper coordination.
-- KEYS: the slot keys (see lib.lua)
-- ARGV[1] op, ARGV[2] token
--   'take' -> {previous token ('' when the slot was released cleanly or never owned), hold-off ms}
--             The hold-off is how long the latest lease in prepare still runs. A worker that lost the slot
--             without releasing it (it died, paused or lost its session) may still be running a handler; it
--             can no longer extend a lease, poll or acknowledge, so once those leases are over the new owner
--             may poll without running beside it. This holds even when an owner in between released cleanly:
--             it never polled, so the leases in prepare are still the cut-off worker's.
--   'give' -> 1 when the token was still the owner's and is now cleared, 0 when another owner holds the slot
local op, token = ARGV[1], ARGV[2]

if op == 'take' then
    local previous = redis.call('GET', K_OWNER) or ''
    redis.call('SET', K_OWNER, token)
    local hold = 0
    local latest = redis.call('ZREVRANGE', K_PREPARE, 0, 0, 'WITHSCORES')
    if latest[2] then
        hold = math.max(0, math.ceil(tonumber(latest[2]) / 1000) - NOW_MS)
    end
    return { previous, hold }
elseif op == 'give' then
    if redis.call('GET', K_OWNER) == token then
        redis.call('SET', K_OWNER, '')
        return 1
    end
    return 0
end
return redis.error_reply('RMQ_BAD_OP unknown fence operation ' .. tostring(op))
