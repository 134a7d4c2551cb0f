-- A buyer admitted at once while the room is off uses up their place in the line, if they
-- have one (DESIGN.md 3): it leaves the line, so that the room turned on again does not admit
-- them a second time from it, and the head moves past its arrival number, so that no place
-- receipt puts it back. In one step, so that no tick pops the place in between.
-- KEYS[1] queue, KEYS[2] head (the greatest arrival number ever admitted).
-- ARGV[1] buyer.
-- Returns the arrival number of the place used up, or -1 when the buyer had none.
local arrival = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not arrival then
  return -1
end
redis.call('ZREM', KEYS[1], ARGV[1])
if tonumber(arrival) > tonumber(redis.call('GET', KEYS[2]) or '0') then
  redis.call('SET', KEYS[2], arrival)
end
return tonumber(arrival)
