-- rmq shared library, prepended to every rmq script before it is loaded.
--
-- Every script receives the same KEYS, all of one slot and all sharing its hash tag:
--   KEYS[1] store     ZSET  waiting messages: member = key, score = due ms (time types) or priority
--   KEYS[2] body      HASH  key -> envelope of a waiting message
--   KEYS[3] prepare   ZSET  in-flight messages: member = key, score = lease deadline in microseconds
--   KEYS[4] inflight  HASH  key -> envelope of an in-flight message
--   KEYS[5] retry     ZSET  priority messages waiting out their backoff: score = retry-at ms
--   KEYS[6] dead      ZSET  dead messages: score = ms when they died
--   KEYS[7] deadbody  HASH  key -> envelope of a dead message, with its last error
--   KEYS[8] wake      STRING the Redis time (ms) at which an idle consumer of this slot plans to poll next
--   KEYS[9] owner     STRING fencing token of the slot's current owner (set by coordination)
--
-- Envelope (big-endian): u8 version=1 | u16 attempts | f64 score | u16 errlen | err | rest
-- "rest" (headers and payload) is opaque here; only the Java side reads it.
-- The lease deadline in prepare doubles as the delivery token: an ack must quote it,
-- so an ack from a delivery whose lease was recovered and redelivered is refused.

local K_STORE, K_BODY, K_PREPARE, K_INFLIGHT = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local K_RETRY, K_DEAD, K_DEADBODY, K_WAKE, K_OWNER = KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9]

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

-- Retry policy as passed by the client: {type, max_retries, initial_ms, multiplier, max_ms, jitter, dead_cap}
local function policy_from(argv, first)
    return {
        type = argv[first],
        max_retries = tonumber(argv[first + 1]),
        initial_ms = tonumber(argv[first + 2]),
        multiplier = tonumber(argv[first + 3]),
        max_ms = tonumber(argv[first + 4]),
        jitter = tonumber(argv[first + 5]),
        dead_cap = tonumber(argv[first + 6]),
    }
end
local POLICY_ARGS = 7

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
    if policy.dead_cap > 0 and redis.call('ZCARD', K_DEAD) > policy.dead_cap then
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

local NOW_US = now_us()
local NOW_MS = math.floor(NOW_US / 1000)
math.randomseed(NOW_US % 2147483647)
