-- A code that moves a buyer's place to another device (queue/moving.rs), or the one they were
-- given already while it lives. In one step with the checks, so that two asks at once give
-- one code, and a place that moves meanwhile gets none.
-- KEYS[1] the new code's key (`move:<code>`), KEYS[2] moving (hash buyer ->
-- 'code:expiry ms' of their last code),
-- KEYS[3] moved (hash buyer -> ms their place moved away), KEYS[4] moved_in (set of buyers
-- whose place arrived by a claim), KEYS[5] queue, KEYS[6] admitted (zset buyer -> expiry ms),
-- KEYS[7] away, KEYS[8] entrants (hash buyer -> ticket), KEYS[9] the draw's record (present
-- once made), KEYS[10] inventory (its first field '1' when sold out), KEYS[11] the key of the
-- code the caller read from `moving` for this buyer (ARGV[5]), or KEYS[1] when none.
-- ARGV[1] buyer, ARGV[2] the new code, ARGV[3] its life in ms, ARGV[4] the inventory's
-- sold-out field, ARGV[5] the buyer's record in `moving` as the caller read it, or '';
-- ARGV[6] '1' when the room binds tokens: an admitted place then stays on its device.
-- Returns {kind, code, expiry}: 'code' with the code and when it expires (ms), else 'sold_out',
-- 'moved' (the place moved once already, here or to here), 'absent' (no place), 'admitted'
-- (admitted in a room that binds tokens) or 'taken' (ARGV[2] is another buyer's live code:
-- ask again with another), with '' and 0.
if redis.call('HGET', KEYS[10], ARGV[4]) == '1' then
  return {'sold_out', '', 0}
end
local buyer = ARGV[1]
if redis.call('HEXISTS', KEYS[3], buyer) == 1 or redis.call('SISMEMBER', KEYS[4], buyer) == 1 then
  return {'moved', '', 0}
end
local now = redis.call('TIME')
local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local expiry = tonumber(redis.call('ZSCORE', KEYS[6], buyer) or '0')
-- A place: in line, skipped while away (their next poll puts them back), admitted now, or a
-- ticket in a pre-queue whose draw is still to be made.
local placed = redis.call('ZSCORE', KEYS[5], buyer) or redis.call('ZSCORE', KEYS[7], buyer)
  or expiry > now_ms
  or (redis.call('EXISTS', KEYS[9]) == 0 and redis.call('HEXISTS', KEYS[8], buyer) == 1)
if not placed then
  return {'absent', '', 0}
end
if ARGV[6] == '1' and expiry > now_ms then
  return {'admitted', '', 0}
end
-- The code given before, while it lives (the caller read it first: a key is named in KEYS).
local given = redis.call('HGET', KEYS[2], buyer)
if given and given == ARGV[5] then
  local code, expiry = string.match(given, '^(.*):(%d+)$')
  if redis.call('GET', KEYS[11]) == buyer then
    return {'code', code, tonumber(expiry)}
  end
elseif given then
  -- Another ask gave a code since the caller read: ask again.
  return {'taken', '', 0}
end
if not redis.call('SET', KEYS[1], buyer, 'NX', 'PX', ARGV[3]) then
  return {'taken', '', 0}
end
local expiry = now_ms + tonumber(ARGV[3])
redis.call('HSET', KEYS[2], buyer, ARGV[2] .. ':' .. expiry)
return {'code', ARGV[2], expiry}
