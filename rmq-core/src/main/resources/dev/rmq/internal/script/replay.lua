
-- Appended to every script of a slot after its body (which the loader wraps in rmq_main).
-- A pipelined call passes a call key after the slot's keys (CALL_KEY, see lib.lua). A call repeated after an
-- ambiguous failure (a batch whose replies all failed because one node failed) then returns the reply of its
-- first run instead of running twice. Error replies are not kept: a call that failed wrote nothing and may
-- simply run again. The replay refreshes the call key, so it writes after the first run's writes: a WAIT on
-- the repeating connection then also covers them.
if CALL_KEY then
    local prior = redis.call('GET', CALL_KEY)
    if prior then
        CALL_ARGV = nil
        redis.call('PEXPIRE', CALL_KEY, 30000)
        return cjson.decode(prior)
    end
end
local reply = rmq_main()
-- the call's arguments, which the script's list readers kept, are not kept until the next call
CALL_ARGV = nil
if CALL_KEY and not (type(reply) == 'table' and reply.err) then
    redis.call('SET', CALL_KEY, cjson.encode(reply), 'PX', 30000)
end
return reply
