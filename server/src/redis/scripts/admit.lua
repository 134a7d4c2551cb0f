-- One admission tick of one event (DESIGN.md invariants 3, 4, 5). Fenced: only the holder of
-- the ticker lock admits, so a leader that stalled past its lease cannot admit twice. The pop
-- and the mark happen here together, so no crash loses a buyer between the two.
-- KEYS[1] lock, KEYS[2] queue, KEYS[3] admitted, KEYS[4] credit (milli-admissions carried
-- between ticks), KEYS[5] this second's stats hash, KEYS[6] admitted total, KEYS[7] head (the
-- greatest arrival number admitted: places behind it that the line lacks were lost, not used),
-- KEYS[8] inventory (hash), KEYS[9] shopping (zset buyer -> admission expiry ms: admitted
-- without a hold yet), KEYS[10] the draw's record (present once the draw is made), KEYS[11]
-- joins (hash buyer -> how they joined and until when they are present, written by
-- locate.lua, `joining.lua`), KEYS[12] the admission log (list), KEYS[13] the last admission
-- number given, KEYS[14] away (zset buyer -> arrival number: skipped at their turn).
-- ARGV[1] owner token, ARGV[2] credit earned this tick (N * tick_ms; 0 while admission waits),
-- ARGV[3] admission ttl ms, ARGV[4] stats ttl s, ARGV[5] and ARGV[6] the stats fields of
-- admissions and of the queue length (all three from counters.rs, where the stats hash is
-- defined), ARGV[7] '1' when the sale has an opening time, ARGV[8] the most entries the
-- admission log may hold in Redis (beyond, an admission gets its number but no entry: the
-- gap shows in the published log), ARGV[9] the last admission number of the lines retired
-- before (Postgres keeps it: the numbers go on after it once the key has expired), ARGV[10]
-- the seat-map deadline ms (an admitted buyer is marked shopping until then; opening the seat
-- map raises the mark past it, seatmap/mod.rs: only a mark beyond now + the deadline is a
-- buyer on the map), ARGV[11] the free seats and ARGV[12] the seats a buyer on the map is
-- counted to take, in thousandths (`Seats::taken_by_a_shopper_milli`: this night's measure,
-- else 1), both '' while the seats are not known: this tick admits no more than the free
-- seats less those of the buyers on the map (what is measured holds admissions back, never a
-- guess: N a second while seats are free), ARGV[13..] the seats as the leader just counted
-- them, field and value pairs (from queue/inventory.rs): stored here so that only the lock
-- holder writes them.
-- Returns {-1, 0, 0} when not the holder, {-2, queue length, 0} when the sale has an opening
-- and its draw is still to be made, else {admitted, queue length after, head after} (the
-- ticker keeps the head in Postgres too, where a failover cannot take it back).
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return {-1, 0, 0}
end
local now = redis.call('TIME')
local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
-- Admissions that expired unused leave the admitted set (their buyers are out of the line).
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now_ms)
redis.call('ZREMRANGEBYSCORE', KEYS[9], '-inf', now_ms)
redis.call('HSET', KEYS[8], unpack(ARGV, 13))
-- Nobody is admitted before the draw: the entrants it puts in line come before everyone in it
-- (the draw's record is written by the same kind of fenced script, so no tick falls between).
-- Until the draw's order is all in line (place.lua), admission stops at the last place given:
-- the entrants behind it come before everyone who joined after the opening.
local ceiling = nil
if ARGV[7] == '1' then
  local record = redis.call('HMGET', KEYS[10], 'entrants', 'placed')
  if not record[1] then
    return {-2, redis.call('ZCARD', KEYS[2]), 0}
  end
  if record[2] and tonumber(record[2]) < tonumber(record[1]) then
    ceiling = tonumber(record[2])
  end
end
local credit = tonumber(redis.call('GET', KEYS[4]) or '0') + tonumber(ARGV[2])
local n = math.floor(credit / 1000)
-- Only the fraction is carried: credit unused because the line was short (or the seats were
-- spoken for) is not hoarded.
redis.call('SET', KEYS[4], credit - n * 1000)
-- What the seats held back this tick, beside them for the panel's rate reason.
local on_map, held_back = 0, 0
if ARGV[11] ~= '' then
  on_map = redis.call('ZCOUNT', KEYS[9], '(' .. (now_ms + tonumber(ARGV[10])), '+inf')
  local spoken_for = math.ceil(on_map * tonumber(ARGV[12]) / 1000)
  local free = math.max(tonumber(ARGV[11]) - spoken_for, 0)
  if free < n then
    held_back = n - free
    n = free
  end
end
redis.call('HSET', KEYS[8], 'on_map', on_map, 'held_back', held_back)
local admitted = 0
if n > 0 then
  local expiry = now_ms + tonumber(ARGV[3])
  local shopping_until = math.min(expiry, now_ms + tonumber(ARGV[10]))
  local last = nil
  local log_room = tonumber(ARGV[8]) - redis.call('LLEN', KEYS[12])
  redis.call('SET', KEYS[13], ARGV[9], 'NX')
  -- A buyer whose presence window ended (their page stopped asking) is skipped and uses no
  -- admission: they go to the away set with their arrival number (their next poll or join
  -- within the presence floor puts them back at it, ahead of everyone behind; later, the
  -- place is gone). Nobody else moves: the rest are admitted in line order. A buyer never
  -- seen (a place made before the marks existed) counts as present. The rounds are bounded,
  -- so a line of the long gone costs a few ticks, not one long script.
  for _ = 1, 8 do
    local take = n - admitted
    if ceiling then
      -- Never past the last place given so far.
      take = math.min(take, redis.call('ZCOUNT', KEYS[2], '-inf', ceiling))
    end
    if take == 0 then
      break
    end
    local popped = redis.call('ZPOPMIN', KEYS[2], take)
    if #popped == 0 then
      break
    end
    for i = 1, #popped, 2 do
      local buyer = popped[i]
      local joining, present_until = joining_parts(redis.call('HGET', KEYS[11], buyer) or '')
      if present_until and present_until < now_ms then
        redis.call('ZADD', KEYS[14], popped[i + 1], buyer)
        redis.call('PERSIST', KEYS[14])
        -- When they were skipped, after the '@': they are back at their place only within the
        -- presence floor of it (locate.lua).
        redis.call('HSET', KEYS[11], buyer, joining .. '@' .. string.format('%.0f', now_ms))
      else
        redis.call('ZADD', KEYS[3], expiry, buyer)
        redis.call('ZADD', KEYS[9], shopping_until, buyer)
        admitted = admitted + 1
        last = popped[i + 1]
        -- The admission log's entry, in the same step as the admission: none is lost between.
        -- After '|', the buyer (kept in Postgres for the outlook's calibration, never published).
        local number = redis.call('INCR', KEYS[13])
        redis.call('HDEL', KEYS[11], buyer)
        local joined = written_out(KEYS[11], joining)
        if log_room > 0 then
          redis.call('RPUSH', KEYS[12], number .. ':' .. popped[i + 1] .. ':' .. now_ms .. ':' .. joined .. '|' .. buyer)
          log_room = log_room - 1
        end
      end
    end
    if admitted >= n then
      break
    end
  end
  if admitted > 0 then
    -- A line retired (its keys expiring) and opened again lives on: SET drops a time to
    -- live by itself, ZADD does not.
    redis.call('PERSIST', KEYS[3])
    redis.call('PERSIST', KEYS[9])
    -- The head only grows: a place used up while the room was off (consume.lua) may lie
    -- beyond the places popped now, and a buyer back from away lies before them.
    if tonumber(last) > tonumber(redis.call('GET', KEYS[7]) or '0') then
      redis.call('SET', KEYS[7], last)
    end
  end
end
local remaining = redis.call('ZCARD', KEYS[2])
if admitted > 0 then
  redis.call('HINCRBY', KEYS[5], ARGV[5], admitted)
  redis.call('INCRBY', KEYS[6], admitted)
end
-- The admissions so far, beside the seats (the last of `Inventory::FIELDS`): with the holds
-- and the buyers still shopping, the share of admitted buyers who hold.
redis.call('HSET', KEYS[8], 'admitted', redis.call('GET', KEYS[6]) or '0')
redis.call('HSET', KEYS[5], ARGV[6], remaining)
redis.call('EXPIRE', KEYS[5], ARGV[4])
return {admitted, remaining, tonumber(redis.call('GET', KEYS[7]) or '0')}
