-- schedule_tick: sends the messages of a recurring schedule's ticks, each once, however many applications run
-- the schedule. The slot's schedules hash records, per schedule, the latest tick accounted for (sent, skipped
-- or given up by the misfire policy): a call sends only ticks after it, and only when it was planned from
-- that same tick, so two applications that plan at once cannot both send a tick, and one that planned from an
-- old view learns the new one and plans again. The ticks' messages are fixed-time messages of the slot, each
-- with a key of its own, placed as a send places them.
-- Fields of the schedules hash, for schedule <name>: <name> the latest tick accounted for (ms); <name>|key the
-- key of the latest tick's message sent; <name>|def the definition's fingerprint, as the last call gave it;
-- <name>|paused present while it is paused.
-- ARGV
--   name            the schedule
--   wake_channel    the channel on which idle consumers of the topic are woken
--   slot            the slot index, published on the wake channel
--   fingerprint     the caller's definition of the schedule, recorded for the next caller to compare
--   based_on        the latest tick (ms) the caller planned from: 0 for none, -1 when it does not know it
--   advance_to      the latest tick (ms) this call accounts for, whether it sends it or not
--   skip_running    1 to drop a tick while the previous tick's message is in flight (overlap SKIP), else 0
--   ticks[]         the messages to send, in tick order, each:
--     tick_ms       the tick
--     key           its message's key
--     due_ms        when it is due: the tick, or the Redis clock's now on a catch-up
--     envelope      its envelope as Java wrote it
-- RETURNS
--   outcome         one of: sent stale paused
--                   sent: the call was applied (its messages sent or skipped); stale: the latest tick in Redis
--                   is not the one the caller planned from, nothing was done; paused: nothing was done
--   last_ms         the latest tick accounted for, after the call (0 for none)
--   sent            messages sent
--   skipped         ticks dropped because the previous tick's message was still in flight
--   fingerprint     the fingerprint recorded before this call ('' for none)
local name = ARG.name
local last = tonumber(redis.call('HGET', K_SCHEDULES, name) or '0')
local recorded = redis.call('HGET', K_SCHEDULES, name .. '|def') or ''
if redis.call('HEXISTS', K_SCHEDULES, name .. '|paused') == 1 then
    return { 'paused', last, 0, 0, recorded }
end
if tonumber(ARG.based_on) ~= last then
    return { 'stale', last, 0, 0, recorded }
end
local previous = redis.call('HGET', K_SCHEDULES, name .. '|key')
local sent, skipped, earliest = 0, 0, nil
for i = 1, ARG.ticks do
    local tick_ms, key, due_ms, envelope = ARG_ticks(i)
    if tonumber(tick_ms) > last then
        if ARG.skip_running == '1' and previous and redis.call('ZSCORE', K_PREPARE, previous) then
            skipped = skipped + 1
        else
            local due = place('F', key, envelope, { score = tonumber(due_ms), expire_at = 0, not_before = 0 })
            sent = sent + 1
            previous = key
            if earliest == nil or due < earliest then
                earliest = due
            end
        end
    end
end
local advanced = math.max(last, tonumber(ARG.advance_to))
redis.call('HSET', K_SCHEDULES, name, advanced, name .. '|def', ARG.fingerprint)
if previous then
    redis.call('HSET', K_SCHEDULES, name .. '|key', previous)
end
if earliest ~= nil then
    wake_if_earlier(earliest, ARG.wake_channel, ARG.slot)
end
return { 'sent', advanced, sent, skipped, recorded }
