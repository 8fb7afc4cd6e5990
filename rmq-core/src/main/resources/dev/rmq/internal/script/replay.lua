
-- Appended to every script after its body (which the loader wraps in rmq_main).
-- A pipelined call passes a call key as KEYS[10]. A call repeated after an ambiguous failure (a batch
-- whose replies all failed because one node failed) then returns the reply of its first run instead of
-- running twice. Error replies are not kept: a call that failed wrote nothing and may simply run again.
-- The replay refreshes the call key, so it writes after the first run's writes: a WAIT on the repeating
-- connection then also covers them.
local call_key = KEYS[10]
if call_key then
    local prior = redis.call('GET', call_key)
    if prior then
        redis.call('PEXPIRE', call_key, 30000)
        return cjson.decode(prior)
    end
end
local reply = rmq_main()
if call_key and not (type(reply) == 'table' and reply.err) then
    redis.call('SET', call_key, cjson.encode(reply), 'PX', 30000)
end
return reply
