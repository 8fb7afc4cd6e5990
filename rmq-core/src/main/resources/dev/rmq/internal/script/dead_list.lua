-- dead_list: a page of the slot's dead messages, oldest first.
-- ARGV
--   offset          the first entry, from 0
--   count           the most entries
-- RETURNS {key1, died_ms1, envelope1, key2, ...}
local offset, count = tonumber(ARG.offset), tonumber(ARG.count)
local entries = redis.call('ZRANGE', K_DEAD, offset, offset + count - 1, 'WITHSCORES')
local out = {}
for i = 1, #entries, 2 do
    out[#out + 1] = entries[i]
    out[#out + 1] = entries[i + 1]
    out[#out + 1] = redis.call('HGET', K_DEADBODY, entries[i]) or ''
end
return out
