-- extend: lengthens the leases of in-flight deliveries of one slot. With no deliveries it only checks the
-- fencing token: how an at-most-once worker, whose batch holds no leases, learns that it still owns the slot; and
-- with hold, moves that batch's deadline (the hold a new owner waits for) to the new lease's end.
-- ARGV
--   lease_ms        the new lease, from now
--   fence           the worker's fencing token ('' when unfenced)
--   hold            '1': an at-most-once batch with messages not started holds the slot until the new lease ends
--   leases[]        the deliveries, each:
--     key           the message key
--     token         the lease deadline the delivery holds now
-- RETURNS
--   leases[]        one per delivery, in order, each:
--     token         the new token (lease deadline in microseconds), 0 where the lease was already lost, or -1
--                   where a cancel removed the delivery
-- ERRORS
--   RMQ_FENCED      the fencing token is not the slot owner's
if fenced(ARG.fence) then
    return fenced_error()
end
local deadline = NOW_US + tonumber(ARG.lease_ms) * 1000
-- as text, formatted once for the call's leases and hold, and only if one is held (see us_text in lib.lua)
local deadline_text = nil
if ARG.hold == '1' then
    deadline_text = string.format('%d', deadline)
    redis.call('SET', K_HOLD, deadline_text, 'PX', ARG.lease_ms)
end
local results = { ARG.leases }
for i = 1, ARG.leases do
    local key, token = ARG_leases(i)
    local held = redis.call('ZSCORE', K_PREPARE, key)
    if held and (held == token or tonumber(held) == tonumber(token)) then
        deadline_text = deadline_text or string.format('%d', deadline)
        redis.call('ZADD', K_PREPARE, deadline_text, key)
        results[i + 1] = deadline
    elseif cancelled_or_stale(key, token) == 'cancelled' then
        -- (also when a newer delivery of the key holds a lease: this holder's was cancelled all the same)
        -- kept for the holder's ack, which reports the cancel too
        redis.call('ZADD', K_CANCELLED, token, key)
        results[i + 1] = -1
    else
        results[i + 1] = 0
    end
end
return results
