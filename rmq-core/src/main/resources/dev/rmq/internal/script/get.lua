-- get: where a message is, by its key.
-- ARGV
--   type            'R' range-merge, 'P' priority, 'F' fixed-time
--   key             the message key
-- RETURNS
--   found[]         one row when a message has the key, none otherwise; a key both in flight and sent again
--                   shows its waiting or parked message. The row:
--     state         one of: waiting delayed retrying parked in-flight dead
--                   retrying: it failed, and waits out its backoff (a time-based message due again later, or
--                   a priority message not visible yet); once that is over it is waiting, its attempts kept
--     score         due ms or priority (waiting, parked), visible-at ms (delayed), due again ms (retrying),
--                   lease deadline µs (in-flight), death ms (dead)
--     envelope      its envelope
--     progress      in flight, what its handler last reported ('percent:reported ms:note', see progress.lua);
--                   '' when it reported nothing, and for a message not in flight
local key = ARG.key
local env = redis.call('HGET', K_BODY, key)
if env then
    local score = redis.call('ZSCORE', K_STORE, member_of(env, key))
    if score then
        local m = env_read(env)
        local backoff = m and m.attempts > 0 and ARG.type ~= 'P' and tonumber(score) > NOW_MS
        return { 1, backoff and 'retrying' or 'waiting', score, env, '' }
    end
    score = redis.call('ZSCORE', K_DELAYED, key)
    if score then
        local m = env_read(env)
        return { 1, (m and m.attempts > 0) and 'retrying' or 'delayed', score, env, '' }
    end
end
env = redis.call('HGET', K_PARKED, key)
if env then
    local m = env_read(env)
    return { 1, 'parked', string.format('%.17g', m and m.score or 0), env, '' }
end
local score = redis.call('ZSCORE', K_PREPARE, key)
if score then
    return { 1, 'in-flight', score, redis.call('HGET', K_INFLIGHT, key) or '',
        redis.call('HGET', K_PROGRESS, key) or '' }
end
score = redis.call('ZSCORE', K_DEAD, key)
if score then
    return { 1, 'dead', score, redis.call('HGET', K_DEADBODY, key) or '', '' }
end
return { 0 }
