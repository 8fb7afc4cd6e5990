-- dead_purge: removes every dead message of the slot.
-- ARGV
-- RETURNS
--   removed         the number of dead messages removed
local count = redis.call('ZCARD', K_DEAD)
redis.call('DEL', K_DEAD, K_DEADBODY)
return { count }
