-- Moves a buyer's place to the device that claims its code (queue/moving.rs), as one step:
-- the code is used once, the place is never in two sessions nor in none, and its arrival
-- number, admission expiry and every other record go along unchanged (same arrival: same
-- position). The claimer's own place, if they had one, is given up in the same step.
-- KEYS[1] the code's key (`move:<code>` -> the buyer whose place it moves), KEYS[2] moving
-- (hash buyer -> their last code), KEYS[3] moved (hash buyer -> ms their place moved away),
-- KEYS[4] moved_in (set of buyers whose place arrived by a claim), KEYS[5] queue (zset buyer
-- -> arrival), KEYS[6] admitted (zset buyer -> expiry ms), KEYS[7] shopping (zset buyer ->
-- ms), KEYS[8] seen (zset buyer -> ms, as a line kept presence before `joining.lua`), KEYS[9] away (zset buyer -> arrival), KEYS[10] joins
-- (hash buyer -> how they joined, and their presence), KEYS[11] entrants (hash buyer -> pre-queue ticket),
-- KEYS[12] bound (hash buyer -> device key thumbprint), KEYS[13] the draw's record (present
-- once made), KEYS[14] the pre-queue's entries (list of "ticket buyer", `Keys::entered`: a
-- moved entrant's ticket is pushed with its new buyer, a ticket given up with none).
-- ARGV[1] the claiming buyer; ARGV[2] the thumbprint of the claimer's device key in a room
-- that binds tokens, else '' (the place keeps the binding it had, if any); ARGV[3] when the
-- sale opens (ms), or '' for a sale without an opening time.
-- Returns {kind, ms}: 'claimed' and when; 'unknown' (no such live code), 'own' (the claimer's
-- own code), 'claimer_moved' (the claimer's place moved away or arrived by a claim),
-- 'claimer_admitted' (the claimer is admitted now), 'drawing' (a pre-queue entrant's place,
-- or claimer, while the draw is being made) with 0, and nothing changed; 'gone' (the
-- place left the line or moved since the code was given: the code is used up) with 0.
local old = redis.call('GET', KEYS[1])
if not old then
  return {'unknown', 0}
end
local new = ARGV[1]
if old == new then
  return {'own', 0}
end
local now = redis.call('TIME')
local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
-- The claimer: a session whose place moved away never has one again (locate.lua), and a
-- place moves at most once; an admitted claimer would lose an admission for a place in line.
if redis.call('HEXISTS', KEYS[3], new) == 1 or redis.call('SISMEMBER', KEYS[4], new) == 1 then
  return {'claimer_moved', 0}
end
if tonumber(redis.call('ZSCORE', KEYS[6], new) or '0') > now_ms then
  return {'claimer_admitted', 0}
end
-- From the opening until the draw's order is all in line the drawer reads the entrants and
-- then puts them in line: an entrant renamed (or given up) between the two would lose the
-- place, so no entrant's place moves then; the code stays good for after.
local record = redis.call('HMGET', KEYS[13], 'entrants', 'placed')
local pending = not record[1] or tonumber(record[2] or record[1]) < tonumber(record[1])
if pending and ARGV[3] ~= '' and now_ms >= tonumber(ARGV[3])
  and (redis.call('HEXISTS', KEYS[11], old) == 1 or redis.call('HEXISTS', KEYS[11], new) == 1) then
  return {'drawing', 0}
end
-- The code is spent from here on, whatever the place's fate.
redis.call('DEL', KEYS[1])
redis.call('HDEL', KEYS[2], old)
-- A place that moved once moves no more: a code its new session had been given for a place
-- of its own (given up in that claim) names a place that arrived by a claim.
local placed = redis.call('HEXISTS', KEYS[3], old) == 0
  and redis.call('SISMEMBER', KEYS[4], old) == 0 and (
  redis.call('ZSCORE', KEYS[5], old) or redis.call('ZSCORE', KEYS[9], old)
  or tonumber(redis.call('ZSCORE', KEYS[6], old) or '0') > now_ms
  or (pending and redis.call('HEXISTS', KEYS[11], old) == 1))
if not placed then
  return {'gone', 0}
end
-- The claimer's own place (a page opened before the code was typed joins at the back) is
-- given up first, so that the moved records below are not removed with it.
local zsets = {KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9]}
local hashes = {KEYS[10], KEYS[11], KEYS[12]}
local given_up = redis.call('HGET', KEYS[11], new)
if given_up then
  redis.call('RPUSH', KEYS[14], given_up .. ' ')
end
local ticket = redis.call('HGET', KEYS[11], old)
if ticket then
  redis.call('RPUSH', KEYS[14], ticket .. ' ' .. new)
end
for _, key in ipairs(zsets) do
  redis.call('ZREM', key, new)
end
for _, key in ipairs(hashes) do
  redis.call('HDEL', key, new)
end
redis.call('HDEL', KEYS[2], new)
-- Every record of the place, scores and values as they were (a score moves as the string
-- Redis gave: arrival numbers are too large to go through a Lua number unchanged).
for _, key in ipairs(zsets) do
  local score = redis.call('ZSCORE', key, old)
  if score then
    redis.call('ZREM', key, old)
    redis.call('ZADD', key, score, new)
  end
end
for _, key in ipairs(hashes) do
  local value = redis.call('HGET', key, old)
  if value then
    redis.call('HDEL', key, old)
    redis.call('HSET', key, new, value)
  end
end
-- In a bound room the place is bound to the claimer's key now, never to the old device's.
if ARGV[2] ~= '' then
  redis.call('HSET', KEYS[12], new, ARGV[2])
end
redis.call('HSET', KEYS[3], old, now_ms)
redis.call('SADD', KEYS[4], new)
return {'claimed', now_ms}
