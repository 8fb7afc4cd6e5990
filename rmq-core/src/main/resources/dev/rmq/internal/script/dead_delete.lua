-- dead_delete: removes one dead message for good.
-- ARGV
--   key             the message key
-- RETURNS 1 removed, 0 not dead.
local removed = redis.call('ZREM', K_DEAD, ARG.key)
redis.call('HDEL', K_DEADBODY, ARG.key)
return removed
