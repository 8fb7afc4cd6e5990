-- prepare: the consumer's poll of one slot. Recovers expired leases, promotes priority retries
-- whose backoff is over, then moves up to a batch of due messages into prepare under a lease.
-- ARGV
--   policy{}        the topic's retry policy, for the expired leases it recovers
--   batch           the most messages to move into prepare
--   lease_ms        the lease
--   fence           the worker's fencing token ('' when unfenced)
--   idle_ms         the longest an idle consumer waits before it polls again
--   recover_limit   the most expired leases to recover
-- RETURNS {token, wait_ms, recovered, key1, envelope1, key2, envelope2, ...}
--   token: the lease deadline in microseconds, quoted by acks; wait_ms: 0 when more may be due now,
--   else how long until the next message is due (capped at the idle poll); recovered: expired leases handled.
-- ERRORS RMQ_FENCED when the fencing token is not the slot owner's.
local policy = policy_from(ARG.policy)
local batch = tonumber(ARG.batch)
local lease_ms = tonumber(ARG.lease_ms)
local idle_ms = tonumber(ARG.idle_ms)
local priority = policy.type == 'P'

if fenced(ARG.fence) then
    return fenced_error()
end

local expired = redis.call('ZRANGEBYSCORE', K_PREPARE, '-inf', NOW_US, 'LIMIT', 0, tonumber(ARG.recover_limit))
for _, key in ipairs(expired) do
    fail(key, 'lease expired before the consumer acknowledged', NOW_MS, policy, false)
end

if priority then
    local ready = redis.call('ZRANGEBYSCORE', K_RETRY, '-inf', NOW_MS, 'LIMIT', 0, batch)
    for _, key in ipairs(ready) do
        redis.call('ZREM', K_RETRY, key)
        local env = redis.call('HGET', K_BODY, key)
        if env and not redis.call('ZSCORE', K_STORE, key) then
            local _, score = env_read(env)
            redis.call('ZADD', K_STORE, score or 0, key)
        end
    end
end

local items
if priority then
    items = redis.call('ZREVRANGE', K_STORE, 0, batch - 1, 'WITHSCORES')
else
    items = redis.call('ZRANGEBYSCORE', K_STORE, '-inf', NOW_MS, 'WITHSCORES', 'LIMIT', 0, batch)
end
local count = #items / 2
local deadline = NOW_US + lease_ms * 1000
local out = { deadline, 0, #expired }

if count > 0 then
    if priority then
        redis.call('ZREMRANGEBYRANK', K_STORE, -count, -1)
    else
        redis.call('ZREMRANGEBYRANK', K_STORE, 0, count - 1)
    end
    local keys = {}
    for i = 1, count do
        keys[i] = items[2 * i - 1]
    end
    local envs = redis.call('HMGET', K_BODY, unpack(keys))
    redis.call('HDEL', K_BODY, unpack(keys))
    local leases, bodies = {}, {}
    for i = 1, count do
        local key, env = keys[i], envs[i]
        if env then
            -- An envelope this version cannot read still goes to the consumer, whose decoder sends it to dead.
            local fresh = env_bump(env, tonumber(items[2 * i])) or env
            leases[#leases + 1] = deadline
            leases[#leases + 1] = key
            bodies[#bodies + 1] = key
            bodies[#bodies + 1] = fresh
            out[#out + 1] = key
            out[#out + 1] = fresh
        end
    end
    if #leases > 0 then
        redis.call('ZADD', K_PREPARE, unpack(leases))
        redis.call('HSET', K_INFLIGHT, unpack(bodies))
    end
end

if count < batch then
    local next_ms = NOW_MS + idle_ms
    if priority then
        -- fewer than a batch were waiting, so the store is empty now: only a retry can come due
        local retry_head = redis.call('ZRANGE', K_RETRY, 0, 0, 'WITHSCORES')
        if retry_head[2] then
            next_ms = math.min(next_ms, tonumber(retry_head[2]))
        end
    else
        local head = redis.call('ZRANGE', K_STORE, 0, 0, 'WITHSCORES')
        if head[2] then
            next_ms = math.min(next_ms, tonumber(head[2]))
        end
    end
    local lease_head = redis.call('ZRANGE', K_PREPARE, 0, 0, 'WITHSCORES')
    if lease_head[2] then
        next_ms = math.min(next_ms, math.floor(tonumber(lease_head[2]) / 1000) + 1)
    end
    local wait = math.max(0, next_ms - NOW_MS)
    out[2] = wait
    if wait > 0 then
        redis.call('SET', K_WAKE, next_ms, 'PX', wait + idle_ms)
    end
else
    redis.call('DEL', K_WAKE)
end
return out
