-- Where a buyer stands in an event's line, joining them if asked (DESIGN.md invariants 1, 2),
-- and putting back what a Redis failover lost of it, on the buyer's signed proof: Redis
-- replicates asynchronously, so a promoted replica may lack the last joins and admissions.
-- Before a sale with an opening time opens, joins go to the pre-queue instead (DESIGN.md "The
-- opening and the draw"): the window is judged by Redis's clock, like arrival order, so every
-- instance agrees on who entered before the opening.
-- KEYS[1] queue (zset buyer -> arrival number), KEYS[2] seq (the last arrival number given),
-- KEYS[3] admitted (zset buyer -> admission expiry ms), KEYS[4] head (the greatest arrival
-- number ever admitted), KEYS[5] inventory (the hash the ticker's leader writes), KEYS[6]
-- shopping (zset buyer -> admission expiry ms: admitted without a hold yet), KEYS[7] the
-- used-once mark of the join's proof of work, KEYS[8] places given per network (hash),
-- KEYS[9] entrants (hash buyer -> ticket), KEYS[10] the draw's record (present once made;
-- its `placed` counts the entrants put in line so far),
-- KEYS[11] joins (hash buyer -> the record of their place's making and their presence,
-- `joining.lua`, which the admission log takes at admission; '#id' -> a model told), KEYS[12] the count of places and entries ever made.
-- KEYS[13] away (zset buyer ->
-- arrival number of the buyers the ticker skipped while they were gone), KEYS[14] moved (hash
-- buyer -> ms when their place moved to another device, `queue::moving`), KEYS[15] the
-- pre-queue's entries (list of "ticket buyer", `Keys::entered`), KEYS[16..] the joins each of
-- the joiner's networks made to this line in the current window (none for a poll).
-- ARGV[1] buyer; ARGV[2] '1' to join when absent; ARGV[3] the arrival number of the buyer's
-- place receipt, or ''; ARGV[4] the expiry (ms) of the buyer's admission token, or '';
-- ARGV[5] the greatest arrival number ever admitted as Postgres keeps it (the head survives
-- there when Redis forgot it: a retired line's keys expire); ARGV[6] the joiner's networks,
-- separated by spaces (an IPv6 client's /64, /56 and /48), ARGV[7] the places each of them
-- may be given, in the same order, ARGV[8] the ms until the join's proof of work
-- expires, or '' for a join without one; ARGV[9] when the pre-queue opens (ms), or '' when the
-- sale has no opening time; ARGV[10] when the sale opens (ms); ARGV[11] a fresh random
-- ticket, for a new entrant ('' where none can enter: a poll, a sale without an opening); ARGV[12] the estimate's band in force (`Band::record`), kept
-- with a new place; ARGV[13] the joins each network of KEYS[16..] may make a window, separated
-- by spaces, in the same order; ARGV[14] the window (ms); ARGV[15] and ARGV[16] the presence
-- window's floor (ms) and divisor (`app::presence::Schedule`), ARGV[17] its cap (ms,
-- `app::presence::WINDOW_MAX_MS`); ARGV[18..] the inventory's fields (queue/inventory.rs), the
-- first of them '1' when sold out.
-- Returns {kind, value, arrival, restored, shopping, inventory, ticket, now_ms}: kind and value
-- 'admitted' and expiry_ms, 'waiting' and position, 'moved' and the ms it moved at,
-- 'rate_limited' and the ms until the window of the network past its share ends,
-- 'pre_queue', 'not_open', 'absent', 'sold_out' or 'network_full' and 0 (a proof of work already used makes no place: 'absent');
-- restored is 1 when this call put back a lost admission or place; shopping counts the
-- admissions without a hold that are live now; inventory holds the values of ARGV[15..] (nil
-- while unknown); ticket is an entrant's ticket (a drawn one's with their place), else '';
-- now_ms is Redis's clock, which the estimate counts the holds' ends from.
-- Every waiting answer keeps the buyer present for a window that grows with their distance
-- from the front (`app::presence`: half their wait at the rate in force, at least the
-- floor, at most the cap; the ticker skips a buyer whose window ended), in this same step so
-- that the poll stays one round trip. A skipped buyer who asks again within the floor of being
-- skipped is back at their own place; later, their place is gone (a join makes a new one).
-- The inventory is read here so that the poll stays one round trip; the network's share and
-- the proof's mark are checked here so that only the step that makes a place (or an entry in
-- the pre-queue) spends them, and the join is recorded here (no other round trip) with the
-- position and band its answer gives, for the night's report.
local now = redis.call('TIME')
local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
-- A join counts against each of its networks' joins this window and is refused at the first
-- past its share, before anything else: counted here, so that a join is one round trip.
local counter = 16
for share in string.gmatch(ARGV[13], '%S+') do
  local joins = redis.call('INCR', KEYS[counter])
  local window_left = redis.call('PTTL', KEYS[counter])
  if window_left < 0 then
    redis.call('PEXPIRE', KEYS[counter], ARGV[14])
    window_left = tonumber(ARGV[14])
  end
  if joins > tonumber(share) then
    return {'rate_limited', window_left, 0, 0, 0, {}, '', now_ms}
  end
  counter = counter + 1
end
local inventory = redis.call('HMGET', KEYS[5], unpack(ARGV, 18))
local shopping = redis.call('ZCOUNT', KEYS[6], '(' .. now_ms, '+inf')
local function reply(kind, value, arrival, restored, ticket)
  return {kind, value, arrival, restored, shopping, inventory, ticket or '', now_ms}
end
-- The model a join is told, as `app::estimate::Model::from_record` reads it: the band, then
-- '/' and the seats (shopping, then the inventory's values after the verdict) when they are
-- all known.
local function model()
  local seats = {shopping}
  for i = 2, #inventory do
    if not inventory[i] then
      return ARGV[12]
    end
    seats[#seats + 1] = inventory[i]
  end
  return ARGV[12] .. '/' .. table.concat(seats, ':')
end
-- A place that moved to another device is gone from this buyer for good: checked before
-- anything that could give them one (an admission token or a place receipt they still hold
-- would put it back, a join would make a new one), so that their page says where it went.
local moved = redis.call('HGET', KEYS[14], ARGV[1])
if moved then
  return reply('moved', tonumber(moved), 0, 0)
end
-- Sold out: the line is over, for the admitted too, and nobody joins it.
if inventory[1] == '1' then
  return reply('sold_out', 0, 0, 0)
end
local buyer = ARGV[1]
local expiry = redis.call('ZSCORE', KEYS[3], buyer)
if expiry and tonumber(expiry) > now_ms then
  return reply('admitted', tonumber(expiry), 0, 0)
end
local token_expiry = tonumber(ARGV[4])
if token_expiry and token_expiry > now_ms then
  -- Admitted (a token we signed says so) but the line does not know it: the admission was
  -- lost. Mark it again rather than send the buyer back into line.
  redis.call('ZREM', KEYS[1], buyer)
  redis.call('ZADD', KEYS[3], token_expiry, buyer)
  return reply('admitted', token_expiry, 0, 1)
end
local opening = ARGV[9] ~= ''
-- The draw is still to be made (pending), or made and its order not yet all in line
-- (draw.lua, place.lua): the entrants not yet placed are ahead of everyone who joined after
-- the opening.
local pending, drawn, unplaced = false, 0, 0
if opening then
  local record = redis.call('HMGET', KEYS[10], 'entrants', 'placed')
  if record[1] then
    drawn = tonumber(record[1])
    unplaced = drawn - tonumber(record[2] or record[1])
  else
    pending = true
  end
end
-- A waiting answer: the position counts the entrants still to be put in line ahead; a drawn
-- entrant (their arrival number is their place in the draw) gets their ticket back. A place
-- just made records its joining.
local function waiting(arrival, restored, made)
  local position = redis.call('ZRANK', KEYS[1], buyer) + 1
  local ticket = ''
  if pending then
    position = position + redis.call('HLEN', KEYS[9])
  elseif opening and arrival <= drawn then
    ticket = redis.call('HGET', KEYS[9], buyer) or ''
  else
    position = position + unplaced
  end
  local joining
  if made then
    -- The model is kept once under its id (the first 16 hex digits of its SHA-1): every join
    -- of a tick is told the same, so a line of millions keeps a few hundred, not one a buyer.
    local told = model()
    local id = '#' .. string.sub(redis.sha1hex(told), 1, 16)
    redis.call('HSETNX', KEYS[11], id, told)
    joining = now_ms .. ':' .. position .. ':' .. id
    redis.call('INCR', KEYS[12])
  else
    joining = joining_parts(redis.call('HGET', KEYS[11], buyer) or '')
  end
  local window = math.max(tonumber(ARGV[15]),
    math.min(math.floor((position - 1) * 1000 / tonumber(ARGV[16])), tonumber(ARGV[17])))
  redis.call('HSET', KEYS[11], buyer, joining .. '@' .. string.format('%.0f', now_ms + window))
  return reply('waiting', position, arrival, restored, ticket)
end
-- A new place or pre-queue entry spends the network's share and the join's proof of work:
-- nil when it may be made, else the answer refusing it.
local function spend()
  local networks, limits = {}, {}
  for network in string.gmatch(ARGV[6], '%S+') do networks[#networks + 1] = network end
  for limit in string.gmatch(ARGV[7], '%S+') do limits[#limits + 1] = tonumber(limit) end
  for i, network in ipairs(networks) do
    if tonumber(redis.call('HGET', KEYS[8], network) or '0') >= limits[i] then
      return reply('network_full', 0, 0, 0)
    end
  end
  if ARGV[8] ~= '' and not redis.call('SET', KEYS[7], '1', 'NX', 'PX', ARGV[8]) then
    return reply('absent', 0, 0, 0)
  end
  for _, network in ipairs(networks) do
    redis.call('HINCRBY', KEYS[8], network, 1)
  end
  return nil
end
local arrival = redis.call('ZSCORE', KEYS[1], buyer)
if not arrival then
  arrival = redis.call('ZSCORE', KEYS[13], buyer)
  local _, skipped_at = joining_parts(arrival and redis.call('HGET', KEYS[11], buyer) or '')
  if arrival and skipped_at and skipped_at + tonumber(ARGV[15]) < now_ms then
    -- Back too late (admit.lua wrote when it skipped them): the place is gone, so that a place
    -- cannot wait at the front for hours; a join makes a new one at the back.
    redis.call('ZREM', KEYS[13], buyer)
    redis.call('HDEL', KEYS[11], buyer)
    arrival = nil
  elseif arrival then
    -- Skipped at their turn while gone, and back in time: in line again at their own arrival
    -- number, before everyone still in it, so the next tick admits them. They lose nothing.
    redis.call('ZREM', KEYS[13], buyer)
    redis.call('ZADD', KEYS[1], arrival, buyer)
    -- Their admission will come after later arrivals by design: the log marks it (the
    -- report counts it apart from the line's order, admission::log).
    local joined = redis.call('HGET', KEYS[11], buyer) or ''
    if string.sub(joined, 1, 5) ~= 'back:' then
      redis.call('HSET', KEYS[11], buyer, 'back:' .. joined)
    end
  end
end
if arrival then
  return waiting(tonumber(arrival), 0, false)
end
-- An entrant with no place yet: before the draw, or behind the part of its order in line.
if pending or unplaced > 0 then
  local ticket = redis.call('HGET', KEYS[9], buyer)
  if ticket then
    return reply('pre_queue', 0, 0, 0, ticket)
  end
end
if pending and now_ms < tonumber(ARGV[10]) then
  if now_ms < tonumber(ARGV[9]) then
    return reply(ARGV[2] == '1' and 'not_open' or 'absent', 0, 0, 0)
  end
  if ARGV[2] ~= '1' then
    return reply('absent', 0, 0, 0)
  end
  -- The pre-queue: a ticket, no place; places come with the draw.
  local refused = spend()
  if refused then
    return refused
  end
  redis.call('HSET', KEYS[9], buyer, ARGV[11])
  redis.call('RPUSH', KEYS[15], ARGV[11] .. ' ' .. buyer)
  redis.call('INCR', KEYS[12])
  return reply('pre_queue', 0, 0, 0, ARGV[11])
end
local restored = 0
local receipt = tonumber(ARGV[3])
local head = math.max(tonumber(redis.call('GET', KEYS[4]) or '0'), tonumber(ARGV[5]) or 0)
if receipt and receipt > head then
  -- Behind everyone ever admitted, yet not in line: the join was lost. Its arrival number
  -- puts the place back exactly where it was.
  arrival = receipt
  restored = 1
elseif ARGV[2] == '1' then
  local refused = spend()
  if refused then
    return refused
  end
  if expiry then
    -- The admission expired unused: the buyer left the line; this is a new place at the back.
    redis.call('ZREM', KEYS[3], buyer)
  end
  -- Arrival numbers only grow, even past a failover that lost the last ones given: at least
  -- Redis's clock in microseconds, so that numbers given after a failover follow the lost
  -- ones (which come back by receipt) as long as the nodes' clocks agree within the seconds
  -- a failover takes. (Drawn entrants' numbers are their places in the draw, 1, 2, ...:
  -- ahead of every number given here.)
  local last = tonumber(redis.call('GET', KEYS[2]) or '0')
  arrival = math.max(last + 1, tonumber(now[1]) * 1000000 + tonumber(now[2]))
else
  return reply('absent', 0, 0, 0)
end
-- Formatted by hand: Lua would print a number this large in exponent notation.
local score = string.format('%.0f', arrival)
redis.call('ZADD', KEYS[1], 'NX', score, buyer)
if arrival > tonumber(redis.call('GET', KEYS[2]) or '0') then
  redis.call('SET', KEYS[2], score)
end
return waiting(arrival, restored, restored == 0)
