-- Makes an event's draw visible, all at once (DESIGN.md "The opening and the draw"): the
-- entrants join the line at their places in the draw, the tickets are published in draw
-- order, and the draw's record says it is made. Fenced like an admission tick (DESIGN.md 4):
-- only the holder of the ticker lock swaps, and only once (the record's absence is checked
-- in the same step). The staging keys were built beforehand, in chunks, by this attempt
-- alone; until this script runs nobody sees them, so a drawer that dies half-way leaves no
-- partial draw in the line, and the next leader draws again from the start.
-- KEYS[1] ticker lock, KEYS[2] entrants (hash buyer -> ticket), KEYS[3] the draw's record,
-- KEYS[4] queue, KEYS[5] staged line (zset buyer -> place), KEYS[6] staged tickets (zset
-- ticket -> place), KEYS[7] published tickets.
-- ARGV[1] owner token, ARGV[2] entrants drawn, ARGV[3] opens_at ms, ARGV[4] seed, ARGV[5]
-- beacon.
-- Returns 1 when the draw was made now, 0 when not the lock holder, 2 when it was made
-- already, -1 when Redis's clock says the sale has not opened (entrants may still come), -2
-- when the staging does not hold every entrant (one entered after it was read, or the
-- staging expired): draw again.
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
if redis.call('HLEN', KEYS[2]) ~= n or redis.call('ZCARD', KEYS[5]) ~= n
    or redis.call('ZCARD', KEYS[6]) ~= n then
  return -2
end
if n > 0 then
  -- MIN: a buyer somehow in both keeps the earlier place.
  redis.call('ZUNIONSTORE', KEYS[4], 2, KEYS[4], KEYS[5], 'AGGREGATE', 'MIN')
  redis.call('DEL', KEYS[5])
  redis.call('RENAME', KEYS[6], KEYS[7])
  -- The staging expires if abandoned; the published draw stays.
  redis.call('PERSIST', KEYS[7])
end
redis.call('HSET', KEYS[3], 'seed', ARGV[4], 'beacon', ARGV[5], 'entrants', n,
  'drawn_at_ms', now_ms, 'drawn_by', ARGV[1])
return 1
