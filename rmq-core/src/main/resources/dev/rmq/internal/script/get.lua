-- get: where a message is, by its key.
-- ARGV
--   key             the message key
-- RETURNS {state, score, envelope}, or an empty list when no message has the key. state is one of:
--   waiting retrying in-flight dead
--   score: due ms or priority (waiting), retry-at ms (retrying), lease deadline µs (in-flight), death ms (dead).
local key = ARG.key
-- where a message can be, in the order it moves through them: its state, its sorted set, its body hash
local places = {
    { 'waiting', K_STORE, K_BODY },
    { 'retrying', K_RETRY, K_BODY },
    { 'in-flight', K_PREPARE, K_INFLIGHT },
    { 'dead', K_DEAD, K_DEADBODY },
}
for _, place in ipairs(places) do
    local score = redis.call('ZSCORE', place[2], key)
    if score then
        return { place[1], score, redis.call('HGET', place[3], key) }
    end
end
return {}
