-- A fixed-window counter. KEYS[1]: the counter; ARGV[1]: the window in ms.
-- Returns {count in this window, ms until the window ends}.
local n = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {n, ttl}
