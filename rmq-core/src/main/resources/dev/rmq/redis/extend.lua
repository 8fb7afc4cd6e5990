-- extend: lengthens the leases of in-flight deliveries of one slot.
-- KEYS: the slot keys (see lib.lua)
-- ARGV[1] lease ms from now, ARGV[2] fencing token ('' when unfenced), ARGV[3] n, then n pairs: key, token
-- Returns: n integers, the new token (lease deadline in microseconds) or 0 where the lease was already lost.
-- Errors: RMQ_FENCED when the fencing token is not the slot owner's.
if fenced(ARGV[2]) then
    return redis.error_reply('RMQ_FENCED the slot is owned by another worker')
end
local deadline = NOW_US + tonumber(ARGV[1]) * 1000
local n = tonumber(ARGV[3])
local results = {}
for i = 0, n - 1 do
    local key, token = ARGV[4 + 2 * i], ARGV[5 + 2 * i]
    local lease = redis.call('ZSCORE', K_PREPARE, key)
    if lease and tonumber(lease) == tonumber(token) then
        redis.call('ZADD', K_PREPARE, deadline, key)
        results[i + 1] = deadline
    else
        results[i + 1] = 0
    end
end
return results
