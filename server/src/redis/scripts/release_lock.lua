-- Release a lock (see lock.rs) only if ARGV[1] still holds it: the compare and the DEL are one
-- step, so a holder whose lease ended cannot delete the lock of the owner after it.
-- KEYS[1] the lock. ARGV[1] owner token.
-- Returns 1 when the lock was released, 0 when ARGV[1] did not hold it.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
