-- dead_delete: removes one dead message for good.
-- ARGV
--   key             the message key
-- RETURNS
--   removed         1 when the message was dead and is removed, else 0
local removed = redis.call('ZREM', K_DEAD, ARG.key)
redis.call('HDEL', K_DEADBODY, ARG.key)
return { removed }
