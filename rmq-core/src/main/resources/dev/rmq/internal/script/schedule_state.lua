-- schedule_state: reads, pauses, resumes or clears a recurring schedule's state in its slot (see schedule_tick),
-- and withdraws the messages of its ticks that were sent ahead of their instant and still wait, which the caller
-- names. A tick whose instant came by the Redis clock stays: it was sent, and is accounted for. A resume accounts
-- for every tick up to now, so that the ticks of the pause are not misfires.
-- ARGV
--   name            the schedule
--   op              'R' read, 'P' pause, 'U' resume, 'X' clear
--   ticks[]         its ticks whose messages to withdraw if they still wait and their instant is still to come, each:
--     key           its message's key
--     tick_ms       the tick
-- RETURNS
--   last_ms         the latest tick accounted for (0 for none)
--   paused          1 while paused, else 0
--   withdrawn       messages withdrawn
--   fingerprint     the fingerprint recorded by the last tick's call ('' for none)
local name = ARG.name
local op = ARG.op
if op == 'P' then
    redis.call('HSET', K_SCHEDULES, name .. '|paused', 1)
elseif op == 'U' then
    redis.call('HDEL', K_SCHEDULES, name .. '|paused')
    local last = tonumber(redis.call('HGET', K_SCHEDULES, name) or '0')
    redis.call('HSET', K_SCHEDULES, name, math.max(last, NOW_MS))
elseif op == 'X' then
    redis.call('HDEL', K_SCHEDULES, name, name .. '|key', name .. '|def', name .. '|paused')
end
local withdrawn = 0
if op == 'P' or op == 'X' then
    for i = 1, ARG.ticks do
        local key, tick_ms = ARG_ticks(i)
        if tonumber(tick_ms) > NOW_MS and redis.call('HDEL', K_BODY, key) == 1 then
            redis.call('ZREM', K_STORE, key)
            withdrawn = withdrawn + 1
        end
    end
end
if op == 'P' then
    -- the ticks sent ahead are withdrawn: the latest accounted for goes back to now, so that a resume before their
    -- instant sends them again (a tick's key is its own, so one that was not withdrawn merges with itself)
    local last = tonumber(redis.call('HGET', K_SCHEDULES, name) or '0')
    if last > NOW_MS then
        redis.call('HSET', K_SCHEDULES, name, NOW_MS)
    end
end
return { tonumber(redis.call('HGET', K_SCHEDULES, name) or '0'),
         redis.call('HEXISTS', K_SCHEDULES, name .. '|paused'),
         withdrawn,
         redis.call('HGET', K_SCHEDULES, name .. '|def') or '' }
