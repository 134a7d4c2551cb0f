-- Join an event's line: one place per buyer, order decided here (DESIGN.md invariants 1, 2).
-- KEYS[1] queue (zset buyer -> arrival seq), KEYS[2] seq (counter), KEYS[3] admitted (zset
-- buyer -> admission expiry ms). ARGV[1] buyer.
-- Returns {'admitted', expiry_ms} or {'waiting', position} (1-based).
local now = redis.call('TIME')
local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local expiry = redis.call('ZSCORE', KEYS[3], ARGV[1])
if expiry and tonumber(expiry) > now_ms then
  return {'admitted', tonumber(expiry)}
end
local rank = redis.call('ZRANK', KEYS[1], ARGV[1])
if not rank then
  if expiry then
    -- The admission expired unused: the buyer left the line; this is a new place at the back.
    redis.call('ZREM', KEYS[3], ARGV[1])
  end
  local seq = redis.call('INCR', KEYS[2])
  redis.call('ZADD', KEYS[1], 'NX', seq, ARGV[1])
  rank = redis.call('ZRANK', KEYS[1], ARGV[1])
end
return {'waiting', rank + 1}
