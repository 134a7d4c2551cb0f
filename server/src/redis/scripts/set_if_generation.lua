-- Store a rebuilt seat map (both its forms) only if no seat changed while it was being built.
-- KEYS[1] cache, KEYS[2] generation (incremented by every invalidation), KEYS[3] cache in runs.
-- ARGV[1] generation read before the build, ARGV[2] value, ARGV[3] physical ttl ms,
-- ARGV[4] value in runs.
if (redis.call('GET', KEYS[2]) or '0') == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  redis.call('SET', KEYS[3], ARGV[4], 'PX', ARGV[3])
  return 1
end
return 0
