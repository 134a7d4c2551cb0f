-- Puts the next chunk of a made draw's order in line, behind the places given so far
-- (draw.lua gives the head). Fenced: only the holder of the ticker lock places, and only the
-- chunk that follows the record's `placed` (a drawer that died leaves `placed` where it
-- stopped, and the next leader, which recomputes the same order, goes on from there).
-- KEYS[1] ticker lock, KEYS[2] the draw's record, KEYS[3] queue, KEYS[4] published tickets
-- (zset ticket -> place).
-- ARGV[1] owner token, ARGV[2] the places given before this chunk, ARGV[3..] buyer and ticket
-- pairs, for the places after them.
-- Returns the places given after this chunk, 0 when not the lock holder, -1 when the record
-- does not stand at ARGV[2] (another drawer placed, or there is no draw).
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
local record = redis.call('HMGET', KEYS[2], 'placed', 'entrants')
if record[1] ~= ARGV[2] then
  return -1
end
local placed = tonumber(ARGV[2])
local last = tonumber(record[2])
for i = 3, #ARGV, 2 do
  if placed >= last then
    break
  end
  placed = placed + 1
  redis.call('ZADD', KEYS[3], 'LT', placed, ARGV[i])
  redis.call('ZADD', KEYS[4], placed, ARGV[i + 1])
end
redis.call('HSET', KEYS[2], 'placed', placed)
return placed
