-- dead_list: a page of the slot's dead messages, oldest first.
-- ARGV
--   offset          the first entry, from 0
--   count           the most entries
-- RETURNS
--   entries[]       the page, oldest first, each:
--     key           its key
--     died_ms       when it died, ms
--     envelope      its envelope, with its last error
local offset, count = tonumber(ARG.offset), tonumber(ARG.count)
local entries = redis.call('ZRANGE', K_DEAD, offset, offset + count - 1, 'WITHSCORES')
local out = { #entries / 2 }
for i = 1, #entries, 2 do
    out[#out + 1] = entries[i]
    out[#out + 1] = entries[i + 1]
    out[#out + 1] = redis.call('HGET', K_DEADBODY, entries[i]) or ''
end
return out
