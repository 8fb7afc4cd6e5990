-- progress: records how far the handler of an in-flight delivery has come, in the slot's progress hash (see lib.lua's
-- KEYS), and may lengthen its lease at the same time. The ending of the delivery removes it.
-- ARGV
--   fence           the worker's fencing token ('' when unfenced, or settled by reference)
--   key             the message key
--   token           the lease deadline the delivery holds now
--   lease_ms        the new lease, from now; '0' keeps the lease as it is
--   percent         how far, 0 to 100
--   note            what the handler says of it ('' for nothing)
-- RETURNS
--   token           the delivery's token after the report (the new lease deadline when extended), 0 when the
--                   lease was already lost, or -1 when a cancel removed the delivery; nothing is recorded then
-- ERRORS
--   RMQ_FENCED      the fencing token is not the slot owner's
if fenced(ARG.fence) then
    return fenced_error()
end
local key = ARG.key
local held = redis.call('ZSCORE', K_PREPARE, key)
if not held or tonumber(held) ~= tonumber(ARG.token) then
    if cancelled_or_stale(key, ARG.token) == 'cancelled' then
        -- kept for the holder's ack, which reports the cancel too
        redis.call('ZADD', K_CANCELLED, ARG.token, key)
        return { -1 }
    end
    return { 0 }
end
local token = tonumber(held)
local lease_ms = tonumber(ARG.lease_ms)
if lease_ms > 0 then
    token = NOW_US + lease_ms * 1000
    redis.call('ZADD', K_PREPARE, token, key)
end
redis.call('HSET', K_PROGRESS, key, ARG.percent .. ':' .. NOW_MS .. ':' .. ARG.note)
return { token }
