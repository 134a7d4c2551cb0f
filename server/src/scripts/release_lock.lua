-- Release a lock (the ticker's, a rebuild's, the sweep's) only if ARGV[1] still holds it.
-- KEYS[1] the lock.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
