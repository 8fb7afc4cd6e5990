-- prepare: the consumer's poll of one slot. First ends the deliveries of the consumer's last batch, if it sends
-- their endings along (as ack.lua would, sparing a call of its own), then recovers expired leases, removes messages whose time to live ran
-- out, returns priority messages whose delay is over to the store, then takes up to a batch of due messages:
-- under a lease into prepare (at least once), or out of Redis at once (at most once). A taken message whose
-- key is still in flight is parked behind that delivery instead; one whose time to live ran out is expired.
-- While the topic is paused it recovers and expires, and takes nothing. It also drops the cancel marks (see
-- cancel.lua) whose leases are over.
-- ARGV
--   policy{}        the topic's retry policy, for the expired leases it recovers and the expiries
--   batch           the most messages to take
--   lease_ms        the lease
--   fence           the worker's fencing token ('' when unfenced)
--   idle_ms         the longest an idle consumer waits before it polls again
--   recover_limit   the most expired leases to recover, and the most expired messages to remove
--   at_most_once    '1': taken messages leave Redis at once, with no lease; '0': they are leased
--   floor           '' to take the most urgent messages, up to a batch; else a score: take only messages at
--                   least as urgent (a priority at least this, or a due time at most this), since another slot
--                   of the consumer holds one that comes next
--   acks[]          deliveries of the slot to end before the poll, each as in ack.lua:
--     op            'C' commit, 'R' roll back, 'N' retry now, 'D' dead, 'X' undecodable, 'Y' undecryptable, 'U' release unstarted,
--                   'H' hand back (see ack.lua)
--     key           the message key
--     token         the lease deadline the delivery was given; a different one means the lease was lost
--     reason        why it failed ('' on commit)
-- RETURNS
--   token           the lease deadline in microseconds, quoted by acks
--   wait_us         0 when more may be due now, else how long until the next message is due by the Redis clock,
--                   in microseconds (capped at the idle poll): to the millisecond, a poll would come half a
--                   millisecond late on average
--   expired         messages whose time to live ran out, removed
--   paused          1 when the topic is paused, else 0
--   next            the score of the most urgent message left that is due now (a priority, or a due time), ''
--                   when none is
--   later           on a range-merge or fixed-time topic, the due time of the earliest message left when the wait
--                   runs to it; '' when one is due (next), none waits, the topic is paused, or a lease or the idle
--                   poll ends the wait sooner. The wake key then holds that time, so a send, retry or reschedule of
--                   an earlier message wakes the consumer (see wake_if_earlier): the consumer knows the slot's head
--                   when the wait is over, until the wake key expires
--   ended           the outcome of each of acks[], in order, separated by spaces ('' with none): the words of
--                   ack.lua's outcome
--   delayed_us      on a priority topic with a message due now (next): how long until its earliest delayed
--                   message comes due, in microseconds by the Redis clock ('' when none is delayed). No send wakes
--                   the consumer then, and only a poll of this slot moves the message among the others, which
--                   may be more urgent than next: the consumer polls the slot first from then on
--   messages[]      the messages taken, in consume order, each:
--     key           its key
--     envelope      its envelope, the attempt already counted: attempts 0 is a first delivery (see env_bump)
--   recovered[]     the deliveries whose lease had run out, ended as failed attempts, in order, each:
--     key           the message key
--     outcome       one of: retry dead expired merged gone
--                   as fail's: merged when a newer send of its key waited, which takes its place
-- ERRORS
--   RMQ_FENCED      the fencing token is not the slot owner's
-- Ends the reply with the recovered leases (pairs of key, outcome), as their count and rows.
local function with_recovered(out, recovered)
    out[#out + 1] = #recovered / 2
    for i = 1, #recovered do
        out[#out + 1] = recovered[i]
    end
    return out
end

local policy = policy_from(ARG.policy)
local batch = tonumber(ARG.batch)
local lease_ms = tonumber(ARG.lease_ms)
-- passed on as text where a command takes it, and read as a number only where the call needs it (see us_text)
local limit = ARG.recover_limit
local priority = policy.type == 'P'
local leased = ARG.at_most_once ~= '1'

if fenced(ARG.fence) then
    return fenced_error()
end
-- Most slots hold nothing parked, no message with a time to live, no retry, no cancel mark, no progress reported and
-- no pause, and on a priority topic nothing delayed. One command asks for them all; where it finds none, the poll
-- spares asking for each (two to five commands). Where it finds any, the poll asks as it would without it: one command more, which a
-- slot that always holds one of them (a topic whose every message has a time to live) pays on every poll.
local none_rare
if priority then
    none_rare = redis.call('EXISTS', K_PARKED, K_EXPIRY, K_PAUSED, K_CANCELLED, K_RETRY, K_PROGRESS, K_DELAYED) == 0
else
    none_rare = redis.call('EXISTS', K_PARKED, K_EXPIRY, K_PAUSED, K_CANCELLED, K_RETRY, K_PROGRESS) == 0
end
if none_rare then
    PARKED_SEEN, PROGRESS_SEEN = false, false
end
-- before the take: a committed key's parked message, and a released delivery, wait again, and may be taken now
local outcomes = end_deliveries(policy.type, policy, ARG.acks, ARG_acks)
for i = 1, #outcomes do
    local outcome = outcomes[i]
    -- an ending that is not a commit may make any of them: a retry, a release, a death, an unparked message
    if outcome ~= 'committed' and outcome ~= 'stale' and outcome ~= 'cancelled' then
        none_rare = false
    end
end
local ended = table.concat(outcomes, ' ')

-- The lease head, the earliest deadline in flight, read once with its score. Most polls find it ahead of the
-- clock, or find nothing in flight at all (a light load's poll has just ended the slot's one delivery); then this one
-- command stands for three: the read of expired leases, the take's question of which keys are in flight, and the
-- read of the head where the wait is planned. A poll that finds the head expired reads the expired leases by
-- score, without the scores (a score in a reply costs Redis a formatting and the script a parse), and leaves the
-- head unknown (nil) for the planning to read again. false: nothing is in flight.
-- key, outcome of each recovered lease, for the end of the reply
local recovered = {}
local lease_head = redis.call('ZRANGE', K_PREPARE, '0', '0', 'WITHSCORES')[2] or false
if lease_head and not us_later(lease_head, us_text()) then
    for _, key in ipairs(redis.call('ZRANGEBYSCORE', K_PREPARE, '-inf', us_text(), 'LIMIT', '0', limit)) do
        recovered[#recovered + 1] = key
        recovered[#recovered + 1] = fail(key, 'lease expired before the consumer acknowledged', policy, 'L')
        none_rare = false
    end
    lease_head = nil
end
-- Whether any message has a time to live, whether the topic is paused and whether a cancel marks a delivery, in
-- one command: then the sweeps and the pause cost no command of their own.
local rare = none_rare and 0 or redis.call('EXISTS', K_EXPIRY, K_PAUSED, K_CANCELLED)
local expired = 0
if rare > 0 then
    expired = sweep_expired(limit, policy)
    -- cancel marks whose deliveries' leases are over: their holders' acks are stale by now
    redis.call('ZREMRANGEBYSCORE', K_CANCELLED, '-inf', us_text())
end
local deadline = NOW_US + lease_ms * 1000
local out = { deadline, 0, expired, 0, '', '', ended, '', 0 }
local NEXT, LATER, DELAYED, HEAD = 5, 6, 8, 9

if rare > 0 and redis.call('EXISTS', K_PAUSED) == 1 then
    -- no planned poll, so that sends do not wake a consumer that would take nothing; a resume wakes every slot
    redis.call('DEL', K_WAKE)
    out[2] = tonumber(ARG.idle_ms) * 1000
    out[4] = 1
    return with_recovered(out, recovered)
end

-- The delayed head is read once and kept for planning the wait, unless this call moves it. Every message due is
-- moved before the take, which then finds the most urgent among them, up to DELAYED_MOVES: the delayed set is in
-- due order, not by priority, so a bound cut by the batch would leave a more urgent one out behind less urgent
-- ones. Each message moves once, so the bound costs nothing over many polls; it keeps one poll short when very
-- many come due at once, and only then is the order among them not kept until the rest have moved.
local DELAYED_MOVES = '1000'
local delayed_head
if priority then
    delayed_head = none_rare and {} or redis.call('ZRANGE', K_DELAYED, '0', '0', 'WITHSCORES')
    if delayed_head[2] and tonumber(delayed_head[2]) <= NOW_MS then
        local ready = redis.call('ZRANGEBYSCORE', K_DELAYED, '-inf', ms_text(), 'LIMIT', '0', DELAYED_MOVES)
        for _, key in ipairs(ready) do
            redis.call('ZREM', K_DELAYED, key)
            local env = redis.call('HGET', K_BODY, key)
            if env then
                local m = env_read(env)
                redis.call('ZADD', K_STORE, m and m.score or 0, member_of(env, key))
            end
        end
        delayed_head = nil
    end
end

-- One message more than the batch is read: it is the head left after the take, which the wait is planned from.
-- A priority poll without a floor takes every message it reads. A small one pops them: one command instead of a
-- read and a removal. ZPOPMAX removes its members one by one, though, where ZREMRANGEBYRANK removes a range in one
-- pass, and from about five members on the command it spares costs less than the pops (callgrind, Redis 7.0).
local floor = ARG.floor ~= '' and tonumber(ARG.floor) or nil
local popped = priority and not floor and batch <= 4
local items
if popped then
    items = redis.call('ZPOPMAX', K_STORE, ARG.batch)
elseif priority and floor then
    items = redis.call('ZREVRANGEBYSCORE', K_STORE, '+inf', ARG.floor, 'WITHSCORES', 'LIMIT', '0', int_text(batch + 1))
elseif priority then
    items = redis.call('ZREVRANGE', K_STORE, '0', ARG.batch, 'WITHSCORES')
else
    items = redis.call('ZRANGEBYSCORE', K_STORE, '-inf', (floor and floor < NOW_MS) and ARG.floor or ms_text(),
        'WITHSCORES', 'LIMIT', '0', int_text(batch + 1))
end
local count = math.min(batch, #items / 2)
local first
if #items / 2 > batch then
    first = { items[2 * batch + 1], items[2 * batch + 2] }
elseif priority and not floor and (count < batch or not popped) then
    -- fewer than a batch (popped), or than a batch and one (read), in the whole store: the take leaves it empty
    first = {}
end

if count > 0 then
    if priority and not popped then
        redis.call('ZREMRANGEBYRANK', K_STORE, int_text(-count), '-1')
    elseif not priority then
        redis.call('ZREMRANGEBYRANK', K_STORE, '0', int_text(count - 1))
    end
    -- a member may carry a FIFO place whether or not the topic keeps FIFO now: one sent while it did still does
    local keys = {}
    for i = 1, count do
        keys[i] = key_of(items[2 * i - 1])
    end
    local envs = redis.call('HMGET', K_BODY, unpack(keys))
    redis.call('HDEL', K_BODY, unpack(keys))
    if not none_rare and redis.call('EXISTS', K_RETRY) == 1 then
        redis.call('ZREM', K_RETRY, unpack(keys))
    end
    -- a taken key still in flight is parked: one command asks, which on a slot with nothing in flight costs what
    -- asking whether anything is would
    local in_flight = nil
    if leased and lease_head ~= false then
        in_flight = redis.call('ZMSCORE', K_PREPARE, unpack(keys))
    end
    local leases, bodies, leaving_expiry = {}, {}, {}
    -- the longest envelope taken: one longer than a listpack holds makes the in-flight hash a hash table
    local longest = 0
    local deadline_text = string.format('%d', deadline)
    for i = 1, count do
        local key, env, score = keys[i], envs[i], tonumber(items[2 * i])
        if env and in_flight and in_flight[i] then
            park(policy.type, key, env, score)
        elseif env then
            local fresh, flags = env_bump(env, score)
            local expire_at = (flags and flags % 2 == 1) and expiry_of(env) or 0
            if expire_at > 0 and expire_at <= NOW_MS then
                leaving_expiry[#leaving_expiry + 1] = key
                expire(key, env, policy)
                expired = expired + 1
            else
                if expire_at > 0 then
                    leaving_expiry[#leaving_expiry + 1] = key
                end
                -- An envelope this version cannot read still goes to the consumer, whose decoder sends it to dead.
                fresh = fresh or env
                if leased then
                    leases[#leases + 1] = deadline_text
                    leases[#leases + 1] = key
                    bodies[#bodies + 1] = key
                    bodies[#bodies + 1] = fresh
                    if #fresh > longest then
                        longest = #fresh
                    end
                end
                out[#out + 1] = key
                out[#out + 1] = fresh
            end
        end
    end
    if #leaving_expiry > 0 then
        redis.call('ZREM', K_EXPIRY, unpack(leaving_expiry))
    end
    if #leases > 0 and any_progress() then
        -- A report outlives its delivery only where a version that kept reports in inflight ended the delivery
        -- (during a rolling upgrade): a new delivery starts with none, and with nothing else in flight no report
        -- is anyone's. Asked only where the slot holds reports, or one of the other rare keys (see none_rare).
        if lease_head == false then
            redis.call('DEL', K_PROGRESS)
        else
            local taken = {}
            for i = 2, #leases, 2 do
                taken[#taken + 1] = leases[i]
            end
            redis.call('HDEL', K_PROGRESS, unpack(taken))
        end
    end
    if #leases > 0 then
        if #leases / 2 >= WIDE_MIN then
            -- a skiplist and a hash table first, so that nothing is looked for in a listpack (see WIDE_MIN)
            redis.call('ZADD', K_PREPARE, '0', WIDE_MEMBER, unpack(leases))
            redis.call('ZREM', K_PREPARE, WIDE_MEMBER)
            if longest <= LISTPACK_VALUE_MAX then
                redis.call('HSET', K_INFLIGHT, WIDE_MEMBER, '', unpack(bodies))
                redis.call('HDEL', K_INFLIGHT, WIDE_MEMBER)
            else
                redis.call('HSET', K_INFLIGHT, unpack(bodies))
            end
        else
            redis.call('ZADD', K_PREPARE, unpack(leases))
            redis.call('HSET', K_INFLIGHT, unpack(bodies))
        end
        -- these leases are the latest in flight, so they are the head only when nothing else is
        -- the head is these leases' deadline now, unless one already in flight ends sooner (one extended, or
        -- given a longer lease, may end later)
        if lease_head == false or (lease_head and us_later(lease_head, deadline_text)) then
            lease_head = deadline_text
        end
    elseif not leased and #out > HEAD then
        -- no lease marks how long these handlers may run, so a new owner of the slot would start beside them
        redis.call('SET', K_HOLD, deadline_text, 'PX', ARG.lease_ms)
    end
end
out[3] = expired

-- What is left: the most urgent message due now, which the consumer orders its slots by; else when one comes due.
if first == nil and priority then
    first = redis.call('ZREVRANGE', K_STORE, '0', '0', 'WITHSCORES')
elseif first == nil then
    first = redis.call('ZRANGE', K_STORE, '0', '0', 'WITHSCORES')
end
if first[2] and (priority or tonumber(first[2]) <= NOW_MS) then
    out[NEXT] = first[2]
    -- a send of a message more urgent than this one tells the consumer (see wake_if_earlier)
    redis.call('SET', K_WAKE, (priority and 'p' or 'd') .. first[2])
    if priority then
        -- read before the take where it may hold anything (nil when this call moved some, {} when none can wait)
        delayed_head = delayed_head or redis.call('ZRANGE', K_DELAYED, '0', '0', 'WITHSCORES')
        if delayed_head[2] then
            out[DELAYED] = string.format('%d', math.max(0, tonumber(delayed_head[2]) * 1000 - NOW_US))
        end
    end
else
    -- planned in microseconds: a message due at ms T is due from T * 1000 on
    local idle_ms = tonumber(ARG.idle_ms)
    local next_us = (NOW_MS + idle_ms) * 1000
    local head_us = first[2] and tonumber(first[2]) * 1000
    if head_us then
        next_us = math.min(next_us, head_us)
    end
    if priority then
        -- only a delayed message can come due
        delayed_head = delayed_head or redis.call('ZRANGE', K_DELAYED, '0', '0', 'WITHSCORES')
        if delayed_head[2] then
            next_us = math.min(next_us, tonumber(delayed_head[2]) * 1000)
        end
    end
    if lease_head == nil then
        lease_head = redis.call('ZRANGE', K_PREPARE, '0', '0', 'WITHSCORES')[2] or false
    end
    if lease_head then
        -- a lease is recovered once the clock reaches its deadline
        next_us = math.min(next_us, tonumber(lease_head))
    end
    if head_us and next_us == head_us then
        out[LATER] = first[2]
    end
    local wait_us = math.max(0, next_us - NOW_US)
    out[2] = wait_us
    if wait_us > 0 then
        -- the wake key speaks in ms, as the due times senders compare with it (see wake_if_earlier)
        local next_ms = math.ceil(next_us / 1000)
        -- whole numbers as text: Redis would format a number with %.17g (see us_text)
        redis.call('SET', K_WAKE, string.format('%d', next_ms), 'PX',
            string.format('%d', next_ms - NOW_MS + idle_ms))
    else
        redis.call('DEL', K_WAKE)
    end
end
out[HEAD] = (#out - HEAD) / 2
return with_recovered(out, recovered)
