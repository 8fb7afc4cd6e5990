-- rmq's shared Lua library, loaded in front of every script of one slot.
--
-- KEYS: the keys of one slot, all sharing its hash tag. A script receives those it uses (its own code and the
-- functions of this file it calls), in this order, and reads each as K_<NAME> (K_STORE, K_BODY, ...): the loader
-- binds them, so that a call passes, and Redis turns into Lua strings, only the keys it touches.
-- KEYS
--   store       ZSET    waiting messages that compete now: member = the key, or on a FIFO topic its place among
--                       equals then the key (see ORDER below); score = due ms (time types) or priority
--   body        HASH    key -> envelope of a waiting message (in store or in delayed)
--   prepare     ZSET    in-flight messages: member = key, score = lease deadline in microseconds
--   inflight    HASH    key -> envelope of an in-flight message
--   delayed     ZSET    priority messages not visible yet (a retry's backoff, or a not-before time):
--                       member = key, score = when it becomes visible, ms
--   dead        ZSET    dead messages: score = ms when they died
--   deadbody    HASH    key -> envelope of a dead message, with its last error
--   wake        STRING  the Redis time (ms) at which an idle consumer of this slot plans to poll next; or 'p' and a
--                       priority, 'd' and a due time: the most urgent message the consumer knows of (see
--                       wake_if_earlier)
--   owner       STRING  fencing token of the slot's current owner (set by coordination)
--   parked      HASH    key -> envelope of a message sent while a delivery of its key was in flight; it waits
--                       for that delivery to end, then joins the waiting messages (see unpark)
--   expiry      ZSET    waiting messages with a time to live: member = key, score = when it expires, ms. An index
--                       only: the envelope's own expiry decides
--   paused      STRING  present while the topic is paused: a poll takes nothing
--   hold        STRING  at most once: the lease deadline (microseconds) of the latest batch taken, which has no
--                       prepare entries; a new owner waits for it as for a lease (see fence_take). Expires by itself
--   retry       ZSET    waiting messages that failed before (see fail): member = key, score = when the retry
--                       was due, ms. An index for counting retries only: the envelope's attempts decide, and a
--                       poll removes what it takes
--   cancelled   ZSET    in-flight deliveries cancelled before their holder ended them: member = key, score =
--                       the lease deadline (µs) the holder quotes, so that its ack or extension learns of the
--                       cancel; a poll drops what is past its deadline
--   throttled   ZSET    keys sent under a throttle rule: member = key, score = when its window ends, ms. The key
--                       expires with its latest mark (see send_controlled)
--   schedules   HASH    the recurring schedules whose slot this is: the latest tick each accounted for, the key of
--                       its latest tick's message, its definition's fingerprint, and a pause (see schedule_tick)
--   progress    HASH    key -> 'percent:reported ms:note', for an in-flight delivery whose handler reported how far
--                       it came (see progress.lua); its ending removes it. A hash of its own, which Redis removes
--                       with its last field, so that the endings of a slot where no handler reports ask once
--                       whether it exists (see any_progress) instead of removing a field per delivery
-- A pipelined call adds a call key after them, CALL_KEY (see replay.lua).
-- A script whose own code calls begin_slot takes calls of several slots, on a Redis that is not a Cluster (where keys
-- of different hash tags may meet in one call): the keys it uses of each slot, one block per slot in the order of its
-- arguments, then the call key. The loader defines bind_slot(g) for it, which binds block g (0 the first).
--
-- ORDER: on a FIFO topic a message's place among equals (one priority, or one due millisecond) is 8 bytes: the
-- Redis clock in microseconds when it was first sent, times 1024, plus its index in that call, big-endian. Its
-- store member is byte 255 (which no UTF-8 key starts with), the place, then the key; Redis orders equal scores
-- by member, so equals are taken in the order first sent. A priority topic takes the highest score first,
-- reading equal scores by member from the highest, so it stores the complement. The envelope keeps the place
-- (flag 4), so the member is found from the key. A merge keeps the place of the first send. Calls take longer
-- than a microsecond and carry fewer than 1024 messages, so places never collide; a Redis clock that steps back
-- can misorder what is sent during the step. Without FIFO the member is the key, and equals go by key.
--
-- ARGV: each script declares its arguments in an ARGV block of its header, one per line, in order.
-- `name{}` is one of the groups declared below, passed as one argument: its fields in order, separated by
-- spaces (policy_from reads the policy's). `name[]`, the last argument if any, is a list, passed as
-- its length followed by its rows; the indented lines under it are the fields of a row. The loader turns
-- the block into the table ARG (ARG.slot, ARG.policy), with a list as its row count
-- (ARG.messages), and for a list the function ARG_<name>(i), which returns the fields of row i in the
-- order the block lists them: `local key, value, envelope = ARG_messages(i)`. Values are as Redis passed
-- them (strings). A call whose argument count does not fit is refused. The Java side encodes the same
-- names in the same order; a test holds the two together, names of row fields included.
--
-- Replies: each script declares its reply in a RETURNS block of the same form, and every script replies with a
-- flat array: the listed fields in order, a `name[]` field as its row count and its rows, each the indented
-- fields in order (a reply may hold several, one after another). A field whose line ends in `one of: ...` holds one of those words
-- and nothing else; a flag is 1 or 0; numbers are integers, except scores, which Lua writes as text so that a
-- fraction is not cut. The Java side reads each reply by the same names (a Reply per script), refuses one of
-- another shape, and a test holds it against the block.
--
-- Errors: a script's ERRORS block lists the codes of the errors it raises (RMQ_<CODE> and a text), each of which
-- Java turns into its own exception. Any script may also raise these:
-- ERRORS
--   RMQ_ARGV        the call's arguments do not fit the script's ARGV block; raised before anything runs
--
-- ARGV GROUP policy: the topic's retry policy, for the scripts that end deliveries
--   type            'R' range-merge, 'P' priority, 'F' fixed-time
--   max_retries     retries after the first attempt
--   initial_ms      backoff after the first failure
--   multiplier      backoff growth per attempt
--   max_ms          backoff cap
--   jitter          the fraction in [0, 1) by which a backoff is shortened at random
--   dead_capacity   dead messages kept per slot, the oldest dropped beyond it (0 keeps all)
--   max_releases    releases a message may have before a further one sends it dead (0: no cap)
--   expiry          what becomes of a message whose time to live ran out: 'drop' or 'dead'
--
-- Envelope (big-endian): u8 version=2 | u8 flags (its low four bits) | u16 attempts | f64 score | place (8 bytes, flag 4)
--   | f64 expire-at ms (flag 1) | f64 not-before ms (flag 2) | u16 releases (flag 8) | u16 errlen | err | content
-- "score" is the due ms or the priority; "content" (headers and payload) is opaque here, only Java reads it.
-- "attempts" counts a message's deliveries, the current one included while it is in flight; a delivered envelope
-- whose attempts are 0 is a first delivery, sent as it was stored (see env_bump), and counts as 1.
-- A dead message's "err" starts with its reason code and byte 31 (see dead_err).
-- Java writes the envelope of a send, with its score where the sender knows it (a priority, a fixed time; a
-- range-merge's due time is the send script's). The time fields it writes are relative (a time to live; a not-before
-- time that is an epoch ms, or when negative a delay): the send script makes them absolute by the Redis clock.
-- The lease deadline in prepare doubles as the delivery token: an ack must quote it,
-- so an ack from a delivery whose lease was recovered and redelivered is refused.

-- Globals read in loops, as locals: a global is a table lookup on every use, a local is not. A Function library
-- cannot read them while it loads (Redis gives it only `redis` then), so begin_call binds them as each call starts.
local tonumber, string, struct, math

local ENV_VERSION = 2
-- version, flags, attempts, score
local ENV_FIXED = 12
local FLAG_EXPIRES = 1
local FLAG_NOT_BEFORE = 2
local FLAG_ORDERED = 4
local FLAG_RELEASED = 8
local MAX_ERROR_LEN = 1024
local FIFO_MARK = '\255'
-- Where earlier versions kept a delivery's progress: the inflight field of byte 255, which no UTF-8 key starts
-- with, then the key. A failure removes it with the envelope, at no cost of its own.
local EARLIER_PROGRESS_MARK = '\255'

-- What one call knows of itself. A script's source is loaded once and its functions kept between calls (a
-- Redis Function is defined once, not per call), so each call starts with begin_call, which reads the clock and
-- forgets what the call before noted.
-- The Redis clock when the call began, in microseconds and milliseconds.
local NOW_US, NOW_MS = 0, 0
-- The same clock as TIME gave it: whole seconds, and the microseconds within, six digits (see us_text).
local NOW_SECONDS, NOW_MICROS = '0', '000000'
-- The highest priority this call placed among the waiting messages, for wake_if_earlier.
local PLACED_TOP = nil
-- Whether any message is parked in the slot, asked at most once per call (see any_parked).
local PARKED_SEEN = nil
-- Whether any delivery of the slot reported progress, asked at most once per call (see any_progress).
local PROGRESS_SEEN = nil
-- The earliest due time of the messages this call made wait again (unparked, released, or retried after a failure),
-- for the caller to wake consumers by (see note_due).
local PLACED_DUE = nil
-- Whether any delivery of the slot is in flight, asked at most once per call (see added_as).
local IN_FLIGHT_SEEN = nil
-- Whether this call put a message in delayed, which wakes a consumer that knows the slot's head (see wake_if_earlier).
local PLACED_DELAYED = false
-- Whether this call seeded math.random from its clock, which only a backoff's jitter needs (see backoff_ms).
local SEEDED = false

local function begin_call()
    tonumber, string, struct, math = _G.tonumber, _G.string, _G.struct, _G.math
    local t = redis.call('TIME')
    local micros = t[2]
    if #micros < 6 then
        micros = string.rep('0', 6 - #micros) .. micros
    end
    NOW_SECONDS, NOW_MICROS = t[1], micros
    NOW_US = tonumber(NOW_SECONDS .. NOW_MICROS)
    NOW_MS = math.floor(NOW_US / 1000)
    -- as begin_slot does, written out: a function call more would cost every call
    PLACED_TOP, PARKED_SEEN, PLACED_DUE, IN_FLIGHT_SEEN, SEEDED, PLACED_DELAYED = nil, nil, nil, nil, false, false
    PROGRESS_SEEN = nil
end

-- Moves a call of several slots on to the next: binds the keys of its block g of KEYS (0 the first; see bind_slot in
-- the loader) and forgets what the call noted of the slot before.
local function begin_slot(g)
    bind_slot(g)
    PLACED_TOP, PARKED_SEEN, PLACED_DUE, IN_FLIGHT_SEEN, PLACED_DELAYED = nil, nil, nil, nil, false
    PROGRESS_SEEN = nil
end

-- Numbers as the text that redis.call takes. Redis formats a number argument with "%.17g", and up to 7.0 that is
-- glibc's printf, which costs more than many a command it feeds (about 2 k instructions, against 3 k for a whole
-- EXISTS); it parses a double in a reply or a tonumber with strtod, at a similar cost. The hot path therefore
-- passes the arguments' own text, and builds the clock's text from TIME's reply.

-- The clock in microseconds (us_text) and in milliseconds (ms_text), as decimal text.
local function us_text()
    return NOW_SECONDS .. NOW_MICROS
end

local function ms_text()
    return NOW_SECONDS .. string.sub(NOW_MICROS, 1, 3)
end

-- Whether time a is later than time b, both in microseconds as decimal text (us_text, or a score as Redis writes
-- it). Redis writes a whole number of microseconds as its digits, and until the year 2286 every such time has as
-- many as the clock's, so texts of one length compare as their numbers do, without a parse (a strtod each).
local function us_later(a, b)
    if #a == #b then
        return a > b
    end
    return tonumber(a) > tonumber(b)
end

-- The lease set and the in-flight hash of a poll of WIDE_MIN messages or more leave their listpacks. Up to 128
-- entries (zset-max-listpack-entries, hash-max-listpack-entries) Redis keeps a sorted set or a hash as a listpack, in
-- which each member or field added is looked for from the head and then placed: a poll's n leases, and its n
-- envelopes where they are short, cost about n * n entry visits (callgrind, polls of 100: 28 % of a message's
-- instructions in the lease ZADD). A skiplist or a hash table finds an entry by its hash. Redis converts either
-- for good (until the key is emptied) when a member, field or value longer than zset-max-listpack-value or
-- hash-max-listpack-value (64) arrives, so the poll's ZADD names WIDE_MEMBER first, at score 0, and its HSET names
-- it as a field where no envelope is that long already; the poll removes it at once. A few leases cost less in a
-- listpack (polls of 2 to 4: 1 to 3 % more instructions converted; of 6, 0.5 % fewer), so they stay there. A Redis
-- whose limits are raised above WIDE_MEMBER's length keeps its listpacks, as it would have. No key starts with byte
-- 255, which is no UTF-8 byte.
local WIDE_MIN, LISTPACK_VALUE_MAX = 6, 64
local WIDE_MEMBER = '\255rmq: an entry longer than the 64 bytes a listpack takes, removed in the same call'

-- The decimal text of small integers, kept between calls (a Function library keeps its locals); made by the first
-- int_text, as POLICY_META is.
local INT_TEXT = nil

-- The decimal text of an integer.
local function int_text(n)
    INT_TEXT = INT_TEXT or {}
    local text = INT_TEXT[n]
    if text == nil then
        text = string.format('%d', n)
        if n >= -1024 and n <= 1024 then
            INT_TEXT[n] = text
        end
    end
    return text
end

-- The place among equals of the index-th message (from 0) of this call, for a topic of type typ. The clock part
-- is split in two, so that each half stays an exact Lua number.
local function order_of(typ, index)
    local hi = math.floor(NOW_US / 4194304)
    local lo = (NOW_US - hi * 4194304) * 1024 + index
    if typ == 'P' then
        return struct.pack('>I4I4', 4294967295 - hi, 4294967295 - lo)
    end
    return struct.pack('>I4I4', hi, lo)
end

-- The store member of a message with place order (nil without one).
local function member(order, key)
    if order then
        return FIFO_MARK .. order .. key
    end
    return key
end

-- The key of a store member.
local function key_of(store_member)
    if string.byte(store_member, 1) == 255 then
        return string.sub(store_member, 10)
    end
    return store_member
end

-- The store member of a waiting message, from its envelope.
local function member_of(env, key)
    local flags = string.byte(env, 2)
    if flags and flags % 8 >= FLAG_ORDERED then
        return FIFO_MARK .. string.sub(env, ENV_FIXED + 1, ENV_FIXED + 8) .. key
    end
    return key
end

-- The envelope as a table {attempts, score, order, expire_at, not_before, releases, err, content}; nil when the
-- bytes are not an envelope this version reads. order is nil without a place.
local function env_read(env)
    if #env < ENV_FIXED + 2 then
        return nil
    end
    local version, flags, attempts, score = struct.unpack('>BBHd', env)
    if version ~= ENV_VERSION then
        return nil
    end
    local m = { attempts = attempts, score = score, expire_at = 0, not_before = 0, releases = 0 }
    local at = ENV_FIXED + 1
    if flags % 8 >= FLAG_ORDERED then
        m.order = string.sub(env, at, at + 7)
        at = at + 8
    end
    if flags % 2 == 1 then
        m.expire_at = struct.unpack('>d', env, at)
        at = at + 8
    end
    if flags % 4 >= FLAG_NOT_BEFORE then
        m.not_before = struct.unpack('>d', env, at)
        at = at + 8
    end
    if flags % 16 >= FLAG_RELEASED then
        m.releases = struct.unpack('>H', env, at)
        at = at + 2
    end
    if #env < at + 1 then
        return nil
    end
    local errlen = struct.unpack('>H', env, at)
    at = at + 2
    if #env < at + errlen - 1 then
        return nil
    end
    m.err = string.sub(env, at, at + errlen - 1)
    m.content = string.sub(env, at + errlen)
    return m
end

local function env_write(m)
    local err = m.err
    if #err > MAX_ERROR_LEN then
        err = string.sub(err, 1, MAX_ERROR_LEN)
    end
    local flags, extra = 0, ''
    if m.order then
        flags = FLAG_ORDERED
        extra = m.order
    end
    if m.expire_at > 0 then
        flags = flags + FLAG_EXPIRES
        extra = extra .. struct.pack('>d', m.expire_at)
    end
    if m.not_before > 0 then
        flags = flags + FLAG_NOT_BEFORE
        extra = extra .. struct.pack('>d', m.not_before)
    end
    if (m.releases or 0) > 0 then
        flags = flags + FLAG_RELEASED
        extra = extra .. struct.pack('>H', math.min(m.releases, 65535))
    end
    return struct.pack('>BBHd', ENV_VERSION, flags, math.min(m.attempts, 65535), m.score) .. extra
        .. struct.pack('>H', #err) .. err .. m.content
end

-- The envelope of a delivery: one more attempt and the score it was taken at, the rest of its bytes kept as they
-- are. A message with no attempt counted yet (new, released, put back) whose envelope already holds that score
-- goes as it is stored, its attempts 0: every envelope a script writes holds its score, and Java writes a
-- priority or a fixed time into a send's. A delivered envelope's 0 stands for this first attempt, and whatever
-- reads one (fail, Java's decoding of a delivery or of an in-flight message) counts it as 1. Most deliveries are
-- first ones, and the rewrite costs a copy of the whole envelope, which a large poll pays per message. Returns the
-- envelope and its flags; nil when the bytes are not an envelope this version reads.
local function env_bump(env, score)
    if #env < ENV_FIXED + 2 then
        return nil
    end
    local version, flags, attempts, stored = struct.unpack('>BBHd', env)
    if version ~= ENV_VERSION then
        return nil
    end
    if attempts == 0 and stored == score then
        return env, flags
    end
    return struct.pack('>BBHd', ENV_VERSION, flags, math.min(attempts + 1, 65535), score) .. string.sub(env, 13), flags
end

-- When the message expires (ms), 0 when it has no time to live or the bytes are not an envelope.
local function expiry_of(env)
    local version, flags = string.byte(env, 1, 2)
    if version ~= ENV_VERSION or flags % 2 == 0 then
        return 0
    end
    local at = ENV_FIXED + 1
    if flags % 8 >= FLAG_ORDERED then
        at = at + 8
    end
    if #env < at + 7 then
        return 0
    end
    return (struct.unpack('>d', env, at))
end

local function fenced(token)
    if token == nil or token == '' then
        return false
    end
    return redis.call('GET', K_OWNER) ~= token
end

local function fenced_error()
    return redis.error_reply('RMQ_FENCED the slot is owned by another worker')
end

-- A policy's metatable, made by the first policy_from (by EVALSHA, what is not a function is run on every call).
local POLICY_META = nil

-- The rest of a policy, read when a field of it is first used: most calls end no delivery as a failure and never
-- read it, and each tonumber is a strtod (see us_text). The fields after the type, in the order of the ARGV GROUP
-- block; all are numbers but expiry.
local function read_policy_rest(policy, name)
    local fields = { 'max_retries', 'initial_ms', 'multiplier', 'max_ms', 'jitter', 'dead_capacity',
        'max_releases', 'expiry' }
    local i = 0
    for field in string.gmatch(string.sub(policy.text, 3), '%S+') do
        i = i + 1
        local key = fields[i]
        if key then
            rawset(policy, key, key == 'expiry' and field or tonumber(field))
        end
    end
    return rawget(policy, name)
end

-- The policy group of ARGV ('R 16 1000 2.0 ...'): its type (one letter) read at once, the rest on first use.
local function policy_from(text)
    POLICY_META = POLICY_META or { __index = read_policy_rest }
    return setmetatable({ type = string.sub(text, 1, 1), text = text }, POLICY_META)
end

local function backoff_ms(policy, attempts)
    local delay = policy.initial_ms * (policy.multiplier ^ (attempts - 1))
    if delay > policy.max_ms then
        delay = policy.max_ms
    end
    if policy.jitter > 0 then
        if not SEEDED then
            math.randomseed(NOW_US % 2147483647)
            SEEDED = true
        end
        delay = delay * (1 - policy.jitter * math.random())
    end
    return math.floor(delay)
end

-- Moves an envelope into the dead queue, keeping at most the policy's dead capacity.
local function bury_env(key, env, policy)
    redis.call('ZADD', K_DEAD, NOW_MS, key)
    redis.call('HSET', K_DEADBODY, key, env)
    if policy.dead_capacity > 0 and redis.call('ZCARD', K_DEAD) > policy.dead_capacity then
        local oldest = redis.call('ZPOPMIN', K_DEAD)
        redis.call('HDEL', K_DEADBODY, oldest[1])
    end
end

-- A dead message's error: why it died, one of the reason codes Java reads (expired, lease_expired,
-- retries_spent, releases_spent, undecodable, undecryptable, handler_verdict), byte 31, then the text of its last failure.
local function dead_err(reason, err)
    return reason .. '\31' .. err
end

-- Buries bytes that are not an envelope this version reads as the payload of one with no headers, so that
-- the dead queue can show them.
local function bury_raw(key, raw, err, policy)
    bury_env(key, env_write({ attempts = 0, score = 0, expire_at = 0, not_before = 0,
                              err = dead_err('undecodable', err ~= '' and err or 'undecodable envelope'),
                              content = '\0' .. raw }), policy)
end

-- Buries a message for reason (a reason code, see dead_err), with err as its last error.
local function bury(key, env, reason, err, policy)
    local m = env_read(env)
    if m == nil then
        bury_raw(key, env, err, policy)
        return
    end
    m.err = dead_err(reason, err)
    bury_env(key, env_write(m), policy)
end

-- What becomes of a message whose time to live ran out: nothing more (dropped), or the dead queue.
local function expire(key, env, policy)
    if policy.expiry == 'dead' then
        bury(key, env, 'expired', 'its time to live ran out before it was delivered', policy)
    end
end

-- Notes a priority placed among the waiting messages, for wake_if_earlier.
local function note_priority(score)
    if PLACED_TOP == nil or score > PLACED_TOP then
        PLACED_TOP = score
    end
end

-- Notes when a message this call made wait again comes due (ms), for wake_if_earlier: the consumer planned its next
-- poll before the message waited, so it learns of it only from a wake-up.
local function note_due(due)
    if PLACED_DUE == nil or due < PLACED_DUE then
        PLACED_DUE = due
    end
end

-- What the wake key holds for a message the consumer knows of: 'p' and its priority, or 'd' and its due time, as
-- whole numbers (Lua writes a number past 1e14 with an exponent), rounded the way that wakes the consumer sooner.
local function wake_mark(priority, due_ms)
    if priority then
        return 'p' .. string.format('%d', math.floor(priority))
    end
    return 'd' .. string.format('%d', math.ceil(due_ms))
end

-- Wakes the slot's consumer when a message placed by this call comes before what the consumer counts on. The
-- wake key holds one of: the poll an idle consumer planned (ms), which a message due earlier brings forward; or,
-- while the consumer works through waiting messages or knows the slot's head from a read (see SlotHeads), the most
-- urgent one it knows of ('p' and a priority, 'd' and a due time), which it orders its slots by: a message more
-- urgent than that tells it to look again. A wake-up leaves the message that woke it in the key: the consumer reads
-- the slot's head before it chooses among its slots, and finds that message or a more urgent one, so the key already
-- says what the read needs, and a message more urgent still wakes it again. On a priority topic a wake-up by a
-- delayed message leaves its due time ('d'), and any message then placed among the waiting is more urgent. A
-- message that waits in delayed wakes a consumer that knows the slot's head ('p'): nothing tells it when the message
-- comes due, which may be more urgent than that head, so it reads the slot's delayed head with its head (SlotHeads).
local function wake_if_earlier(due_ms, channel, slot)
    local planned = redis.call('GET', K_WAKE)
    if not planned then
        return
    end
    local mark = string.sub(planned, 1, 1)
    local wakes
    if mark == 'p' then
        wakes = (PLACED_TOP and PLACED_TOP > tonumber(string.sub(planned, 2))) or PLACED_DELAYED
    elseif mark == 'd' then
        wakes = PLACED_TOP or due_ms < tonumber(string.sub(planned, 2))
    else
        wakes = due_ms < tonumber(planned)
    end
    if wakes then
        redis.call('SET', K_WAKE, wake_mark(PLACED_TOP, due_ms))
        redis.call('PUBLISH', channel, slot)
    end
end

-- Makes a message wait: in the store at its score and place, or, for a priority message whose not-before
-- time is still ahead, in delayed. Writes its body and its expiry. Returns when it is due.
local function place(typ, key, env, m)
    if typ == 'P' and m.not_before > NOW_MS then
        redis.call('ZADD', K_DELAYED, m.not_before, key)
        PLACED_DELAYED = true
    else
        redis.call('ZADD', K_STORE, m.score, member(m.order, key))
        if typ == 'P' then
            note_priority(m.score)
        end
    end
    redis.call('HSET', K_BODY, key, env)
    if m.expire_at > 0 then
        redis.call('ZADD', K_EXPIRY, m.expire_at, key)
    end
    if typ == 'P' then
        return math.max(NOW_MS, m.not_before)
    end
    return m.score
end

-- Whether any message is parked in the slot, asked once per call.
local function any_parked()
    if PARKED_SEEN == nil then
        PARKED_SEEN = redis.call('EXISTS', K_PARKED) == 1
    end
    return PARKED_SEEN
end

-- Whether any delivery of the slot reported progress, asked once per call.
local function any_progress()
    if PROGRESS_SEEN == nil then
        PROGRESS_SEEN = redis.call('EXISTS', K_PROGRESS) == 1
    end
    return PROGRESS_SEEN
end

-- A parked message whose key has a newer message waiting, one sent behind the same delivery after a poll had
-- parked this one, merges into it: the newer content, time to live and due time or priority, and the parked one's
-- place among equals. The newer send's own due time stays, as when a poll parks a due send into a parked message:
-- a send's content is never delivered before its own range has passed. Returns when the merged message is due, or
-- nil when it waits in delayed (a priority message's not-before time, kept) or cannot be read (kept as it is).
local function merge_parked(typ, key, parked, waiting_env)
    local w = env_read(waiting_env)
    if w == nil then
        return nil
    end
    local was = member(w.order, key)
    local score = redis.call('ZSCORE', K_STORE, was)
    if parked.order and parked.order ~= w.order then
        -- the parked one's place among equals, which the envelope keeps and the store member spells; a message
        -- in delayed (a not-before time) is a plain key there, and takes its place from the envelope later
        w.order = parked.order
        redis.call('HSET', K_BODY, key, env_write(w))
        if score then
            redis.call('ZREM', K_STORE, was)
            redis.call('ZADD', K_STORE, score, member(w.order, key))
        end
    end
    if not score then
        return nil
    end
    if typ == 'P' then
        return NOW_MS
    end
    return tonumber(score)
end

-- A delivery of key ended: the message parked behind it, if any, joins the waiting messages as a new one, or
-- merges into one of its key that waits already (see merge_parked). Returns true when there was one.
local function unpark(typ, key)
    if not any_parked() then
        return false
    end
    local env = redis.call('HGET', K_PARKED, key)
    if not env then
        return false
    end
    redis.call('HDEL', K_PARKED, key)
    local m = env_read(env)
    if m == nil then
        m = { score = NOW_MS, expire_at = 0, not_before = 0 }
    end
    local waiting = redis.call('HGET', K_BODY, key)
    local due
    if waiting then
        due = merge_parked(typ, key, m, waiting)
    else
        due = place(typ, key, env, m)
    end
    if due then
        note_due(due)
    end
    return true
end

-- A message taken from the store whose key is in flight waits in parked until that delivery ends. A message
-- parked there already merges with it as a send does: the latest content, the first place, and the first due
-- time (range-merge) or the latest score (priority, fixed-time).
local function park(typ, key, env, score)
    local m = env_read(env)
    if m == nil then
        redis.call('HSET', K_PARKED, key, env)
        PARKED_SEEN = true
        return
    end
    m.score = score
    local old = redis.call('HGET', K_PARKED, key)
    local o = old and env_read(old)
    if o then
        m.order = o.order
        if typ == 'R' then
            m.score = o.score
        end
    end
    redis.call('HSET', K_PARKED, key, env_write(m))
    PARKED_SEEN = true
end

-- A new message's send outcome: 'behind' when a delivery of its key is in flight, so that it waits for that
-- delivery to end (see park), else 'added'. A journal tells the two apart: behind a delivery, the key's older
-- message is not lost but in flight. A slot with nothing in flight, as while a backlog is sent, answers for the
-- whole call with one command.
local function added_as(key)
    if IN_FLIGHT_SEEN == nil then
        IN_FLIGHT_SEEN = redis.call('EXISTS', K_PREPARE) == 1
    end
    if IN_FLIGHT_SEEN and redis.call('ZSCORE', K_PREPARE, key) then
        return 'behind'
    end
    return 'added'
end

-- Ends a delivery's lease and returns its envelope (nil when the body is gone), for the caller to place.
local function take_inflight(key)
    local env = redis.call('HGET', K_INFLIGHT, key)
    redis.call('ZREM', K_PREPARE, key)
    redis.call('HDEL', K_INFLIGHT, key, EARLIER_PROGRESS_MARK .. key)
    if any_progress() then
        redis.call('HDEL', K_PROGRESS, key)
    end
    return env
end

-- Ends an in-flight delivery as a failure. mode: 'R' retry after backoff (or dead after the maximum
-- retries), 'L' the same for a lease that ran out, 'N' retry at once (an attempt all the same), 'D' dead at once
-- by the handler's verdict, 'X' dead at once because it cannot be decoded, 'Y' because it cannot be decrypted.
-- Returns 'retry', 'dead', 'expired', 'merged' (a newer send of the key waits, and replaces this delivery)
-- or 'gone'.
local function fail(key, err, policy, mode)
    local typ = policy.type
    local env = take_inflight(key)
    if not env then
        unpark(typ, key)
        return 'gone'
    end
    local m = env_read(env)
    if m == nil then
        bury_raw(key, env, err, policy)
        unpark(typ, key)
        return 'dead'
    end
    if m.attempts == 0 then
        -- a first delivery, its envelope delivered as stored (see env_bump): the attempt counts from here on
        m.attempts = 1
        env = env_write(m)
    end
    if mode == 'D' or mode == 'X' or mode == 'Y' or m.attempts > policy.max_retries then
        local reason = mode == 'D' and 'handler_verdict' or mode == 'X' and 'undecodable'
            or mode == 'Y' and 'undecryptable'
            or mode == 'L' and 'lease_expired' or 'retries_spent'
        m.err = dead_err(reason, err)
        bury_env(key, env_write(m), policy)
        unpark(typ, key)
        return 'dead'
    end
    -- a message parked behind this delivery, and one sent behind it since, are newer: this one gives way
    if unpark(typ, key) or redis.call('HEXISTS', K_BODY, key) == 1 then
        return 'merged'
    end
    if m.expire_at > 0 and m.expire_at <= NOW_MS then
        expire(key, env, policy)
        return 'expired'
    end
    local retry_at = NOW_MS
    if mode ~= 'N' then
        retry_at = NOW_MS + backoff_ms(policy, m.attempts)
    end
    m.err = err
    m.not_before = 0
    if typ == 'P' then
        if mode == 'N' then
            redis.call('ZADD', K_STORE, m.score, member(m.order, key))
            note_priority(m.score)
        else
            redis.call('ZADD', K_DELAYED, retry_at, key)
            PLACED_DELAYED = true
        end
    else
        m.score = retry_at
        redis.call('ZADD', K_STORE, retry_at, member(m.order, key))
    end
    redis.call('HSET', K_BODY, key, env_write(m))
    if m.expire_at > 0 then
        redis.call('ZADD', K_EXPIRY, m.expire_at, key)
    end
    redis.call('ZADD', K_RETRY, retry_at, key)
    note_due(retry_at)
    return 'retry'
end

-- What an ack or extension of a delivery that holds no lease learns: 'cancelled' when a cancel removed that very
-- delivery (its marker quotes the holder's token, and is dropped now that the holder knows), else 'stale'.
local function cancelled_or_stale(key, token)
    local marked = redis.call('ZSCORE', K_CANCELLED, key)
    if marked and tonumber(marked) == tonumber(token) then
        redis.call('ZREM', K_CANCELLED, key)
        return 'cancelled'
    end
    return 'stale'
end

-- The lease each of n deliveries holds, row(i) giving the i-th as op, key, token, when all n quote one token and
-- that token's leases are not many more than n: leases[i] is then the token, or false when the delivery holds no
-- such lease. Nil otherwise. The deliveries of one poll share their lease deadline, so ZRANGEBYSCORE of that very
-- score lists the ones still holding it, where ZMSCORE would reply with a score per key, each formatted by Redis
-- (up to 7.0 with %.17g, about 3.5 k instructions). Not for endings that are a small part of their poll (single
-- acks of a large poll), whose token's leases are many more.
local function leases_by_token(n, row)
    local _, _, token = row(1)
    for i = 2, n do
        local _, _, other = row(i)
        if other ~= token then
            return nil
        end
    end
    if redis.call('ZCOUNT', K_PREPARE, token, token) > 2 * n then
        return nil
    end
    local holding, leases = {}, {}
    for _, key in ipairs(redis.call('ZRANGEBYSCORE', K_PREPARE, token, token)) do
        holding[key] = true
    end
    for i = 1, n do
        local _, key = row(i)
        leases[i] = holding[key] and token or false
    end
    return leases
end

-- Ends n in-flight deliveries, row(i) giving the i-th as op, key, token, reason (see ack.lua's acks[]), and returns
-- their outcomes in order. A message parked behind a delivery that ends joins the waiting messages.
local function end_deliveries(typ, policy, n, row)
    local results = {}
    if n == 0 then
        return results
    end
    -- Puts a delivery back to waiting at its place, its attempt not counted. One the program hands back
    -- (counted) counts as a release, and goes dead once the topic's releases are spent; one never started does not.
    local function release(key, counted, reason)
        local env = take_inflight(key)
        if unpark(typ, key) or redis.call('HEXISTS', K_BODY, key) == 1 then
            return 'merged'
        end
        if not env then
            -- nothing to put back, as fail says of a delivery whose body is gone
            return 'gone'
        end
        local m = env_read(env)
        if m then
            m.attempts = math.max(m.attempts - 1, 0)
            m.not_before = 0
            if counted then
                m.releases = m.releases + 1
                if policy.max_releases > 0 and m.releases > policy.max_releases then
                    m.err = dead_err('releases_spent', 'released ' .. m.releases .. ' times'
                        .. (reason ~= '' and (': ' .. reason) or ''))
                    bury_env(key, env_write(m), policy)
                    return 'dead'
                end
            end
            -- due again at once (or at its due time): idle consumers are woken for it, as for an unparked one
            note_due(place(typ, key, env_write(m), m))
            if m.attempts > 0 then
                -- a retry handed back unstarted is still a retry
                redis.call('ZADD', K_RETRY, NOW_MS, key)
            end
        else
            note_due(place(typ, key, env, { score = NOW_MS, expire_at = 0, not_before = 0 }))
        end
        return 'released'
    end
    -- One or two commands for the whole batch: most acks are commits, and one command per message would cost more
    -- than the commits themselves. Eight endings or more of one poll are found by their token, others by key
    -- (Redis 6.2+). A lease and the token quoting it are compared as text first: Redis writes a whole number of
    -- microseconds as the digits the token has, and a parse costs a strtod (see us_text).
    local leases = n >= 8 and leases_by_token(n, row)
    if not leases then
        local keys = {}
        for i = 1, n do
            local _, key = row(i)
            keys[i] = key
        end
        leases = redis.call('ZMSCORE', K_PREPARE, unpack(keys))
    end
    local committed = {}
    for i = 1, n do
        local op, key, token, reason = row(i)
        local lease = leases[i]
        local result
        if not lease or (lease ~= token and tonumber(lease) ~= tonumber(token)) then
            result = cancelled_or_stale(key, token)
        elseif op == 'C' then
            committed[#committed + 1] = key
            result = 'committed'
        elseif op == 'U' or op == 'H' then
            result = release(key, op == 'H', reason)
        else
            result = fail(key, reason, policy, op)
        end
        results[i] = result
    end
    if #committed > 0 then
        redis.call('ZREM', K_PREPARE, unpack(committed))
        redis.call('HDEL', K_INFLIGHT, unpack(committed))
        if any_progress() then
            -- each delivery's progress with it, where any handler of the slot reported some
            redis.call('HDEL', K_PROGRESS, unpack(committed))
        end
        if any_parked() then
            for _, key in ipairs(committed) do
                unpark(typ, key)
            end
        end
    end
    return results
end

-- Removes up to limit waiting messages whose time to live ran out: dropped or buried, as the policy says.
-- The expiry set is an index: an entry whose message a later send without a time to live replaced is dropped.
-- Returns how many expired.
local function sweep_expired(limit, policy)
    local keys = redis.call('ZRANGEBYSCORE', K_EXPIRY, '-inf', ms_text(), 'LIMIT', '0', limit)
    if #keys == 0 then
        return 0
    end
    redis.call('ZREM', K_EXPIRY, unpack(keys))
    redis.call('ZREM', K_RETRY, unpack(keys))
    local count = 0
    for _, key in ipairs(keys) do
        local hash = K_BODY
        local env = redis.call('HGET', K_BODY, key)
        if not env and any_parked() then
            hash = K_PARKED
            env = redis.call('HGET', K_PARKED, key)
        end
        local expire_at = env and expiry_of(env) or 0
        if expire_at > 0 and expire_at <= NOW_MS then
            redis.call('HDEL', hash, key)
            if hash == K_BODY then
                redis.call('ZREM', K_STORE, member_of(env, key))
                redis.call('ZREM', K_DELAYED, key)
            end
            expire(key, env, policy)
            count = count + 1
        elseif expire_at > NOW_MS then
            -- sent again meanwhile with a later time to live
            redis.call('ZADD', K_EXPIRY, expire_at, key)
        end
    end
    return count
end

-- Puts a dead message back to waiting from attempt 0, without its time to live: due now (time types) or at
-- its priority, at its old place among equals.
-- Returns 1 requeued, 2 dropped because a newer message with the key already waits or is in flight, 0 not dead.
-- Requeued beside a delivery of its key in flight, the older content would take the place of the newer: the
-- delivery's failure or release would merge into it, and its commit would unpark it after the newer.
-- replacement: nil, or an envelope whose content (headers and payload) the message waits with instead of its own.
local function requeue_dead(typ, key, replacement)
    local env = redis.call('HGET', K_DEADBODY, key)
    redis.call('ZREM', K_DEAD, key)
    redis.call('HDEL', K_DEADBODY, key)
    if not env then
        return 0
    end
    if redis.call('HEXISTS', K_BODY, key) == 1 or (any_parked() and redis.call('HEXISTS', K_PARKED, key) == 1)
            or redis.call('ZSCORE', K_PREPARE, key) then
        return 2
    end
    local m = env_read(env)
    if m == nil then
        m = { score = 0, content = '\0' .. env }
    end
    m.attempts, m.err, m.expire_at, m.not_before, m.releases = 0, '', 0, 0, 0
    if typ ~= 'P' then
        m.score = NOW_MS
    end
    local other = replacement and env_read(replacement)
    if other then
        m.content = other.content
    end
    place(typ, key, env_write(m), m)
    return 1
end
