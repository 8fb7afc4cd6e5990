-- cancel: removes a waiting message (in the store, delayed, retrying or parked); in-flight and dead ones are
-- left alone.
-- ARGV
--   key             the message key
-- RETURNS
--   removed         1 when a message was removed, else 0
local key = ARG.key
local env = redis.call('HGET', K_BODY, key)
local removed = 0
if env then
    redis.call('ZREM', K_STORE, member_of(env, key))
    redis.call('ZREM', K_DELAYED, key)
    redis.call('HDEL', K_BODY, key)
    removed = 1
else
    removed = redis.call('HDEL', K_PARKED, key)
end
if removed == 1 then
    redis.call('ZREM', K_EXPIRY, key)
    redis.call('ZREM', K_RETRY, key)
end
return { removed }
