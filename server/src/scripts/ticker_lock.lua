-- Take or renew an event's ticker lock. KEYS[1] lock. ARGV[1] owner token, ARGV[2] lease ms.
-- Returns 1 when ARGV[1] holds the lock for the next lease, 0 when someone else does.
local holder = redis.call('GET', KEYS[1])
if not holder then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
