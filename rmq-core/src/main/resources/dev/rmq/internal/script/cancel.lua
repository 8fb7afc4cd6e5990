-- cancel: removes every copy of a key that is not dead: the message that waits (in the store, delayed, retrying
-- or parked) and the delivery in flight. The in-flight delivery leaves a marker in cancelled until its lease
-- deadline, so that its holder's ack answers 'cancelled' instead of 'committed', and its extension fails. The
-- handler runs on: a cancel does not reach into the consumer. Dead messages are left alone.
-- ARGV
--   key             the message key
-- RETURNS
--   waiting         1 when a waiting (or parked) message was removed, else 0
--   in_flight       1 when a delivery in flight was cancelled, else 0
local key = ARG.key
local env = redis.call('HGET', K_BODY, key)
local waiting = 0
if env then
    redis.call('ZREM', K_STORE, member_of(env, key))
    redis.call('ZREM', K_DELAYED, key)
    redis.call('HDEL', K_BODY, key)
    waiting = 1
end
-- a key can wait both in the store (sent after its parked copy was taken) and in parked
if redis.call('HDEL', K_PARKED, key) == 1 then
    waiting = 1
end
if waiting == 1 then
    redis.call('ZREM', K_EXPIRY, key)
    redis.call('ZREM', K_RETRY, key)
end
local in_flight = 0
local lease = redis.call('ZSCORE', K_PREPARE, key)
if lease then
    take_inflight(key)
    redis.call('ZADD', K_CANCELLED, lease, key)
    in_flight = 1
end
return { waiting, in_flight }
