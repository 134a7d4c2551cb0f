-- Join an event's line: one place per buyer, order decided here (DESIGN.md invariants 1, 2).
-- KEYS[1] queue (zset buyer -> arrival seq), KEYS[2] seq (counter), KEYS[3] admitted (zset
-- buyer -> admission expiry ms). ARGV[1] buyer.
-- Returns {'admitted', expiry_ms, 0} or {'waiting', position (1-based), arrival (the score)}.
local now = redis.call('TIME')
local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local expiry = redis.call('ZSCORE', KEYS[3], ARGV[1])
if expiry and tonumber(expiry) > now_ms then
  return {'admitted', tonumber(expiry), 0}
end
local rank = redis.call('ZRANK', KEYS[1], ARGV[1])
local seq
if rank then
  seq = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]))
else
  if expiry then
    -- The admission expired unused: the buyer left the line; this is a new place at the back.
    redis.call('ZREM', KEYS[3], ARGV[1])
  end
  seq = redis.call('INCR', KEYS[2])
  redis.call('ZADD', KEYS[1], 'NX', seq, ARGV[1])
  -- The newest arrival has the highest score, so it is last: no second search of the set.
  rank = redis.call('ZCARD', KEYS[1]) - 1
end
return {'waiting', rank + 1, seq}
