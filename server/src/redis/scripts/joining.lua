-- Put before the scripts that take a place's record of its joining (admit.lua, consume.lua;
-- `Scripts::new`). The joins hash keeps a place's record as 'joined_ms:position:#id' and the
-- model it was told once, under '#id' (locate.lua); a record from before that has the model
-- in it, and reads as it is.
-- take_joining(joins, buyer): the record of `buyer`'s joining with its model written out,
-- as `admission::log` reads it ('' when there is none); the buyer's field is deleted, the
-- model's stays for the other buyers told it (the line's keys expire with it, retire.lua).
local function take_joining(joins, buyer)
  local joined = redis.call('HGET', joins, buyer) or ''
  redis.call('HDEL', joins, buyer)
  local head, id = string.match(joined, '^(.*:)(#%x+)$')
  if id then
    return head .. (redis.call('HGET', joins, id) or '')
  end
  return joined
end
