-- rmq's shared Lua library, loaded in front of every script.
--
-- KEYS: every script receives the same keys, all of one slot and all sharing its hash tag, in this order.
-- KEYS
--   store       ZSET    waiting messages: member = key, score = due ms (time types) or priority
--   body        HASH    key -> envelope of a waiting message
--   prepare     ZSET    in-flight messages: member = key, score = lease deadline in microseconds
--   inflight    HASH    key -> envelope of an in-flight message
--   retry       ZSET    priority messages waiting out their backoff: score = retry-at ms
--   dead        ZSET    dead messages: score = ms when they died
--   deadbody    HASH    key -> envelope of a dead message, with its last error
--   wake        STRING  the Redis time (ms) at which an idle consumer of this slot plans to poll next
--   owner       STRING  fencing token of the slot's current owner (set by coordination)
-- A pipelined call adds a call key after them (see replay.lua).
--
-- ARGV: each script declares its arguments in an ARGV block of its header, one per line, in order.
-- `name{}` is one of the groups declared below. `name[]`, the last argument if any, is a list, passed as
-- its length followed by its rows; the indented lines under it are the fields of a row. The loader turns
-- the block into the table ARG (ARG.slot, ARG.policy.max_retries), with a list as its row count
-- (ARG.messages), and for a list the function ARG_<name>(i), which returns the fields of row i in the
-- order the block lists them: `local key, value, envelope = ARG_messages(i)`. Values are as Redis passed
-- them (strings). A call whose argument count does not fit is refused. The Java side encodes the same
-- names in the same order; a test holds the two together, names of row fields included.
--
-- ARGV GROUP policy: the topic's retry policy, for the scripts that end deliveries
--   type            'R' range-merge, 'P' priority, 'F' fixed-time
--   max_retries     retries after the first attempt
--   initial_ms      backoff after the first failure
--   multiplier      backoff growth per attempt
--   max_ms          backoff cap
--   jitter          the fraction in [0, 1) by which a backoff is shortened at random
--   dead_capacity   dead messages kept per slot, the oldest dropped beyond it (0 keeps all)
--
-- Envelope (big-endian): u8 version=1 | u16 attempts | f64 score | u16 errlen | err | rest
-- "rest" (headers and payload) is opaque here; only the Java side reads it.
-- The lease deadline in prepare doubles as the delivery token: an ack must quote it,
-- so an ack from a delivery whose lease was recovered and redelivered is refused.

local K_STORE = KEYS[1]
local K_BODY = KEYS[2]
local K_PREPARE = KEYS[3]
local K_INFLIGHT = KEYS[4]
local K_RETRY = KEYS[5]
local K_DEAD = KEYS[6]
local K_DEADBODY = KEYS[7]
local K_WAKE = KEYS[8]
local K_OWNER = KEYS[9]

local ENV_HEADER = '>BHdH'
local ENV_HEADER_LEN = 13
local MAX_ERROR_LEN = 1024

local function now_us()
    local t = redis.call('TIME')
    return tonumber(t[1]) * 1000000 + tonumber(t[2])
end

-- returns attempts, score, error, rest; nil when the bytes are not an envelope this version reads
local function env_read(env)
    if #env < ENV_HEADER_LEN then
        return nil
    end
    local version, attempts, score, errlen = struct.unpack(ENV_HEADER, env)
    if version ~= 1 or #env < ENV_HEADER_LEN + errlen then
        return nil
    end
    local err = string.sub(env, ENV_HEADER_LEN + 1, ENV_HEADER_LEN + errlen)
    local rest = string.sub(env, ENV_HEADER_LEN + errlen + 1)
    return attempts, score, err, rest
end

local function env_write(attempts, score, err, rest)
    if #err > MAX_ERROR_LEN then
        err = string.sub(err, 1, MAX_ERROR_LEN)
    end
    if attempts > 65535 then
        attempts = 65535
    end
    return struct.pack(ENV_HEADER, 1, attempts, score, #err) .. err .. rest
end

-- The envelope with one more attempt and a new score, the rest of its bytes kept as they are: the cheap
-- rewrite of every delivery. Nil when the bytes are not an envelope this version reads.
local function env_bump(env, score)
    if #env < ENV_HEADER_LEN then
        return nil
    end
    local version, attempts = struct.unpack('>BH', env)
    if version ~= 1 then
        return nil
    end
    return struct.pack('>BHd', 1, math.min(attempts + 1, 65535), score) .. string.sub(env, 12)
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

-- The policy group of ARGV with its numbers read.
local function policy_from(group)
    return {
        type = group.type,
        max_retries = tonumber(group.max_retries),
        initial_ms = tonumber(group.initial_ms),
        multiplier = tonumber(group.multiplier),
        max_ms = tonumber(group.max_ms),
        jitter = tonumber(group.jitter),
        dead_capacity = tonumber(group.dead_capacity),
    }
end

local function backoff_ms(policy, attempts)
    local delay = policy.initial_ms * (policy.multiplier ^ (attempts - 1))
    if delay > policy.max_ms then
        delay = policy.max_ms
    end
    if policy.jitter > 0 then
        delay = delay * (1 - policy.jitter * math.random())
    end
    return math.floor(delay)
end

local function bury(key, attempts, score, err, rest, now_ms, policy)
    redis.call('ZADD', K_DEAD, now_ms, key)
    redis.call('HSET', K_DEADBODY, key, env_write(attempts, score, err, rest))
    if policy.dead_capacity > 0 and redis.call('ZCARD', K_DEAD) > policy.dead_capacity then
        local oldest = redis.call('ZPOPMIN', K_DEAD)
        redis.call('HDEL', K_DEADBODY, oldest[1])
    end
end

-- Ends a delivery's lease and returns its envelope (nil when the body is gone), for the caller to place.
local function take_inflight(key)
    local env = redis.call('HGET', K_INFLIGHT, key)
    redis.call('ZREM', K_PREPARE, key)
    redis.call('HDEL', K_INFLIGHT, key)
    return env
end

-- Ends an in-flight delivery as a failure: back to waiting after backoff, or dead.
-- Returns 'retry', 'dead', 'merged' (a newer send of the key already waits) or 'gone'.
local function fail(key, err, now_ms, policy, force_dead)
    local env = take_inflight(key)
    if not env then
        return 'gone'
    end
    local attempts, score, _, rest = env_read(env)
    if attempts == nil then
        -- keep the raw bytes as the payload of a readable envelope (no headers), so the dead queue can show them
        if err == '' then
            err = 'undecodable envelope'
        end
        bury(key, 0, 0, err, '\0' .. env, now_ms, policy)
        return 'dead'
    end
    if force_dead or attempts > policy.max_retries then
        bury(key, attempts, score, err, rest, now_ms, policy)
        return 'dead'
    end
    if redis.call('ZSCORE', K_STORE, key) then
        return 'merged'
    end
    local retry_at = now_ms + backoff_ms(policy, attempts)
    if policy.type == 'P' then
        redis.call('ZADD', K_RETRY, retry_at, key)
    else
        score = retry_at
        redis.call('ZADD', K_STORE, retry_at, key)
    end
    redis.call('HSET', K_BODY, key, env_write(attempts, score, err, rest))
    return 'retry'
end

-- Wakes idle consumers of the slot when a message becomes due before their planned poll.
local function wake_if_earlier(due_ms, channel, slot)
    local planned = redis.call('GET', K_WAKE)
    if planned and due_ms < tonumber(planned) then
        redis.call('DEL', K_WAKE)
        redis.call('PUBLISH', channel, slot)
    end
end

-- Puts a dead message back to waiting from attempt 0: due now (time types) or at its priority.
-- Returns 1 requeued, 2 dropped because a newer message with the key already waits, 0 not dead.
local function requeue_dead(key, typ, now_ms)
    local env = redis.call('HGET', K_DEADBODY, key)
    redis.call('ZREM', K_DEAD, key)
    redis.call('HDEL', K_DEADBODY, key)
    if not env then
        return 0
    end
    if redis.call('ZSCORE', K_STORE, key) then
        return 2
    end
    local attempts, score, _, rest = env_read(env)
    if attempts == nil then
        rest, score = '\0' .. env, 0
    end
    if typ ~= 'P' then
        score = now_ms
    end
    redis.call('ZADD', K_STORE, score, key)
    redis.call('HSET', K_BODY, key, env_write(0, score, '', rest))
    return 1
end

local NOW_US = now_us()
local NOW_MS = math.floor(NOW_US / 1000)
math.randomseed(NOW_US % 2147483647)
