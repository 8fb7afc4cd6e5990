-- clear: removes every waiting message of the slot (due now or later, held back by a not-before time or a retry's
-- backoff) and every parked one, in one step; in-flight and dead messages are left alone. No index entry belongs
-- to an in-flight message (a poll removes those of what it takes), so the indexes go whole. UNLINK frees the
-- memory in the background, so that a large slot does not hold Redis up for long.
-- ARGV
--   list_keys       1 to reply with the keys removed (for a journal), else 0
-- RETURNS
--   waiting         the waiting messages removed
--   parked          the parked messages removed
--   keys[]          the keys removed, each once, when asked for, each:
--     key           a key
local waiting = redis.call('HLEN', K_BODY)
local parked = redis.call('HLEN', K_PARKED)
local out = { waiting, parked, 0 }
if ARG.list_keys == '1' then
    local listed = redis.call('HKEYS', K_BODY)
    for _, key in ipairs(redis.call('HKEYS', K_PARKED)) do
        -- a key sent again while its parked message waited is in both: listed once
        if redis.call('HEXISTS', K_BODY, key) == 0 then
            listed[#listed + 1] = key
        end
    end
    out[3] = #listed
    for i = 1, #listed do
        out[3 + i] = listed[i]
    end
end
redis.call('UNLINK', K_STORE, K_BODY, K_DELAYED, K_PARKED, K_EXPIRY, K_RETRY)
return out
