-- rate: the token bucket of a topic's rate limit, one for every consumer of the topic in every application.
-- A take asks for up to `want` tokens and gets what the bucket holds; a negative `want` gives back tokens a
-- poll did not use. The bucket refills at `rate` per second up to `burst`, by the Redis clock. This script
-- runs on the topic's bucket key alone, without lib.lua.
-- KEYS
--   bucket      HASH    tokens (a fraction) and at (µs of the last refill); expires a minute after its last use
-- ARGV
--   rate            tokens per second
--   burst           the most tokens the bucket holds
--   want            tokens wanted; negative: tokens given back
-- RETURNS
--   granted         the tokens taken
--   wait_ms         when none were, how long until what was wanted (at most a full bucket) has come: consumers
--                   that find the bucket empty come back for a batch, not for each token
local K_BUCKET = KEYS[1]
local rate, burst, want = tonumber(ARG.rate), tonumber(ARG.burst), tonumber(ARG.want)
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local state = redis.call('HMGET', K_BUCKET, 'tokens', 'at')
local tokens, at = tonumber(state[1]), tonumber(state[2])
if tokens == nil or at == nil then
    tokens, at = burst, now
end
if now > at then
    tokens = math.min(burst, tokens + (now - at) * rate / 1000000)
end
local granted = 0
if want < 0 then
    tokens = math.min(burst, tokens - want)
else
    granted = math.min(want, math.floor(tokens))
    tokens = tokens - granted
end
redis.call('HSET', K_BUCKET, 'tokens', string.format('%.9f', tokens), 'at', string.format('%.0f', now))
redis.call('PEXPIRE', K_BUCKET, math.ceil(burst * 1000 / rate) + 60000)
local wait = 0
if granted == 0 and want > 0 then
    wait = math.max(1, math.ceil((math.min(want, burst) - tokens) * 1000 / rate))
end
return { granted, wait }
