-- fence_give: clears the slot's owner, unless another owner took the slot meanwhile.
-- ARGV
--   token           the fencing token of the owner that lets the slot go
-- RETURNS
--   cleared         1 when the token was still the owner's and is now cleared, 0 when another owner holds
--                   the slot
if redis.call('GET', K_OWNER) == ARG.token then
    redis.call('SET', K_OWNER, '')
    return { 1 }
end
return { 0 }
