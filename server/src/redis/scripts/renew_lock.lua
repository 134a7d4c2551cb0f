-- Renew a lock (see lock.rs) only if ARGV[1] still holds it: the compare and the PEXPIRE are
-- one step, so a holder whose lease ended cannot extend the lock of the owner after it.
-- KEYS[1] the lock. ARGV[1] owner token, ARGV[2] lease ms.
-- Returns 1 when ARGV[1] holds the lock for the next lease, 0 when it does not hold it.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
