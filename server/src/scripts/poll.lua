-- Where a buyer stands, without changing anything.
-- KEYS[1] queue, KEYS[2] admitted. ARGV[1] buyer.
-- Returns {'admitted', expiry_ms, 0}, {'waiting', position, arrival} or {'absent', 0, 0}.
local now = redis.call('TIME')
local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local expiry = redis.call('ZSCORE', KEYS[2], ARGV[1])
if expiry and tonumber(expiry) > now_ms then
  return {'admitted', tonumber(expiry), 0}
end
local rank = redis.call('ZRANK', KEYS[1], ARGV[1])
if rank then
  return {'waiting', rank + 1, tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]))}
end
return {'absent', 0, 0}
