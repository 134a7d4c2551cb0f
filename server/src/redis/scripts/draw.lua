-- Makes an event's draw (DESIGN.md "The opening and the draw"): writes the draw's record and
-- puts the head of the draw's order in line, so that admission can start at once; the rest is
-- put in line behind it by place.lua, a chunk at a time, while admission goes on. Fenced like
-- an admission tick (DESIGN.md 4): only the holder of the ticker lock draws, and only once
-- (the record's absence is checked in the same step).
-- KEYS[1] ticker lock, KEYS[2] entrants (hash buyer -> ticket), KEYS[3] the draw's record,
-- KEYS[4] queue, KEYS[5] published tickets (zset ticket -> place).
-- ARGV[1] owner token, ARGV[2] entrants drawn, ARGV[3] opens_at ms, ARGV[4] seed, ARGV[5]
-- beacon, ARGV[6..] the head of the order: buyer and ticket pairs, for places 1, 2, ...
-- Returns 1 when the draw was made now, 0 when not the lock holder, 2 when it was made
-- already, -1 when Redis's clock says the sale has not opened (entrants may still come), -2
-- when the entrants are not the ones drawn (one entered after they were read): draw again.
-- The record's `placed` counts the entrants in line so far (places 1..placed); until it
-- reaches `entrants`, admission stops at it and the entrants behind it are told the draw is
-- being made (locate.lua, admit.lua).
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
if redis.call('EXISTS', KEYS[3]) == 1 then
  return 2
end
local now = redis.call('TIME')
local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
if now_ms < tonumber(ARGV[3]) then
  return -1
end
local n = tonumber(ARGV[2])
-- The entrants only ever grow, so as many as were drawn means the very ones drawn.
if redis.call('HLEN', KEYS[2]) ~= n then
  return -2
end
local placed = 0
for i = 6, #ARGV, 2 do
  placed = placed + 1
  -- LT: a buyer somehow in line already keeps the earlier place (every later arrival number
  -- is greater than any place in the draw).
  redis.call('ZADD', KEYS[4], 'LT', placed, ARGV[i])
  redis.call('ZADD', KEYS[5], placed, ARGV[i + 1])
end
redis.call('HSET', KEYS[3], 'seed', ARGV[4], 'beacon', ARGV[5], 'entrants', n,
  'placed', placed, 'drawn_at_ms', now_ms, 'drawn_by', ARGV[1])
return 1
