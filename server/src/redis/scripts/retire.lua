-- Retires the line of an event whose room is off (see admission/retire.rs): its keys served
-- the night and serve nobody now, so they get a time to live, and its admissions count goes
-- (the caller has just added it to the archive in Postgres). In one step with the checks, so
-- that a join or an admission since the caller looked keeps everything for a later attempt.
-- KEYS[1] queue, KEYS[2] head, KEYS[3] admitted total, KEYS[4..] the other keys of the line
-- (arrival sequence, admitted set, carried credit, inventory, shopping, places per network,
-- when each buyer was last seen, the buyers skipped while away, the move codes given, the
-- places moved away and moved in, the rate, the health reports, the device bindings, the
-- refusals counted and who was counted without script).
-- ARGV[1] the head the caller archived ('' when none), ARGV[2] the admissions count it
-- archived ('' when none), ARGV[3] the time to live in ms.
-- Returns -1 when the line is busy (someone in line) or moved on, else how many keys it
-- deleted or gave a time to live (0: the line had none left).
if redis.call('ZCARD', KEYS[1]) > 0 then
  return -1
end
if (redis.call('GET', KEYS[2]) or '') ~= ARGV[1] or (redis.call('GET', KEYS[3]) or '') ~= ARGV[2] then
  return -1
end
local touched = redis.call('DEL', KEYS[3]) + redis.call('PEXPIRE', KEYS[2], ARGV[3])
for i = 4, #KEYS do
  touched = touched + redis.call('PEXPIRE', KEYS[i], ARGV[3])
end
return touched
