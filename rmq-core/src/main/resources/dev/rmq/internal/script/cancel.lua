-- cancel: removes a waiting or retrying message; in-flight and dead ones are left alone.
-- ARGV
--   key             the message key
-- RETURNS 1 when a message was removed, else 0.
local removed = redis.call('ZREM', K_STORE, ARG.key) + redis.call('ZREM', K_RETRY, ARG.key)
if removed > 0 then
    redis.call('HDEL', K_BODY, ARG.key)
    return 1
end
return 0
