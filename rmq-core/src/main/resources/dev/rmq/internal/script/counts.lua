-- counts: how many messages of the slot are where, by the Redis clock.
-- ARGV
--   type            'R' range-merge, 'P' priority, 'F' fixed-time
--   verify_limit    the most entries of the retry index checked against their envelopes; 0 reads none
-- RETURNS
--   due_now         waiting and due (time types), or visible (priority)
--   later           waiting for a due time, a backoff or a not-before time
--   retrying        of those waiting later, the ones that failed and wait out their backoff (checked against
--                   their envelopes up to verify_limit entries, the rest of the index counted as it stands)
--   parked          sent while their key was in flight
--   in_flight       delivered and not acknowledged
--   dead            in the dead queue
--   paused          1 while the topic is paused, else 0
--   due_age_ms      how long the oldest due message has been due (time types), 0 when none is due or for priority
--                   topics, whose messages carry no send time
--   fence           the fencing token of the slot's owner, as coordination set it; '' when none holds the slot
local verify_limit = tonumber(ARG.verify_limit)
local waiting = redis.call('ZCARD', K_STORE)
local due_now, later
if ARG.type == 'P' then
    due_now = waiting
    later = redis.call('ZCARD', K_DELAYED)
else
    due_now = redis.call('ZCOUNT', K_STORE, '-inf', NOW_MS)
    later = waiting - due_now
end
local retrying = 0
-- the retry index holds when each retry is due again: what is due by now waits like any other message
local later_than_now = '(' .. NOW_MS
local indexed = redis.call('ZCOUNT', K_RETRY, later_than_now, '+inf')
if indexed > 0 and verify_limit > 0 then
    local keys = redis.call('ZRANGEBYSCORE', K_RETRY, later_than_now, '+inf', 'LIMIT', 0, verify_limit)
    local envs = redis.call('HMGET', K_BODY, unpack(keys))
    for i = 1, #keys do
        local env = envs[i]
        if env and string.byte(env, 1) == ENV_VERSION and struct.unpack('>H', env, 3) > 0 then
            retrying = retrying + 1
        end
    end
    retrying = retrying + math.max(0, indexed - #keys)
else
    retrying = indexed
end
-- the store's head is the earliest due time: the message that has waited longest since it became due
local due_age_ms = 0
if ARG.type ~= 'P' and due_now > 0 then
    local head = redis.call('ZRANGE', K_STORE, 0, 0, 'WITHSCORES')
    due_age_ms = math.max(0, NOW_MS - tonumber(head[2]))
end
return { due_now, later, retrying, redis.call('HLEN', K_PARKED), redis.call('ZCARD', K_PREPARE),
         redis.call('ZCARD', K_DEAD), redis.call('EXISTS', K_PAUSED), due_age_ms, redis.call('GET', K_OWNER) or '' }
