-- Drops from the head of an admission log the entries now in Postgres (admission/log.rs). By
-- number, not by count: two flushes racing (a leader that stalled and its successor) each
-- drop only what they wrote, so no entry is dropped before it is in Postgres.
-- KEYS[1] the admission log (list of 'n:...', in n order). ARGV[1] the greatest n written.
-- Returns how many entries it dropped.
local through = tonumber(ARGV[1])
local dropped = 0
while true do
  local first = redis.call('LINDEX', KEYS[1], 0)
  if not first then
    break
  end
  local n = tonumber(string.match(first, '^(%d+):'))
  -- An entry without a number cannot be written anywhere: it goes too.
  if n and n > through then
    break
  end
  redis.call('LPOP', KEYS[1])
  dropped = dropped + 1
end
return dropped
