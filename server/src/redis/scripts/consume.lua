-- A buyer admitted at once while the room is off uses up their place in the line, if they
-- have one (DESIGN.md 3): it leaves the line, so that the room turned on again does not admit
-- them a second time from it, and the head moves past its arrival number, so that no place
-- receipt puts it back. In one step, so that no tick pops the place in between.
-- The admission goes to the admission log like the ticker's (see admit.lua), with its arrival,
-- and is counted in this second's admissions (the operator's series reads true with the room
-- off): once per buyer and admission life, since every poll hands out a new token.
-- KEYS[1] queue, KEYS[2] head (the greatest arrival number ever admitted), KEYS[3] joins,
-- KEYS[4] the admission log, KEYS[5] the last admission number given, KEYS[6] this second's
-- stats hash, KEYS[7] the buyers admitted with the room off (zset buyer -> end ms).
-- ARGV[1] buyer, ARGV[2] the most entries the admission log may hold in Redis, ARGV[3] the
-- last admission number of the lines retired before (see admit.lua), ARGV[4] the admissions
-- field, ARGV[5] the stats ttl s, ARGV[6] the admission life ms.
-- Returns the arrival number of the place used up, or -1 when the buyer had none.
local now = redis.call('TIME')
local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[7], '-inf', now_ms)
if redis.call('ZADD', KEYS[7], 'NX', now_ms + tonumber(ARGV[6]), ARGV[1]) == 1 then
  redis.call('PEXPIRE', KEYS[7], ARGV[6])
  redis.call('HINCRBY', KEYS[6], ARGV[4], 1)
  redis.call('EXPIRE', KEYS[6], ARGV[5])
end
local arrival = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not arrival then
  return -1
end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('SET', KEYS[5], ARGV[3], 'NX')
local n = redis.call('INCR', KEYS[5])
local joining = joining_parts(redis.call('HGET', KEYS[3], ARGV[1]) or '')
redis.call('HDEL', KEYS[3], ARGV[1])
local joined = written_out(KEYS[3], joining)
if redis.call('LLEN', KEYS[4]) < tonumber(ARGV[2]) then
  redis.call('RPUSH', KEYS[4], n .. ':' .. arrival .. ':' .. now_ms .. ':' .. joined .. '|' .. ARGV[1])
end
if tonumber(arrival) > tonumber(redis.call('GET', KEYS[2]) or '0') then
  redis.call('SET', KEYS[2], arrival)
end
return tonumber(arrival)
