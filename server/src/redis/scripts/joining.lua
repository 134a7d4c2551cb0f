-- Put before the scripts that read the joins hash (locate.lua, admit.lua, consume.lua;
-- `Scripts::new`). It keeps, for each buyer in line, one record: how their place was made,
-- 'joined_ms:position:#id' ('back:' before it once they came back from away; '' when the line
-- did not record it), the model they were told kept once for every buyer told it under '#id',
-- and, after '@', until when their last waiting answer keeps them present (ms,
-- `app::presence`; no '@' when never seen). One field a buyer, not a field and a sorted set
-- member: a line of millions keeps each buyer's id once beside the line itself. A model stays
-- until the line's keys expire (retire.lua): there are at most as many as the seconds in which
-- places were made, times the instances making them, never more than the buyers.
-- A record's parts: the joining, and until when the buyer is present (nil: never seen).
local function joining_parts(record)
  local joining, present_until = string.match(record, '^(.*)@(%d+)$')
  if joining then
    return joining, tonumber(present_until)
  end
  return record, nil
end
-- A joining with its model written out, as `admission::log` reads it.
local function written_out(joins, joining)
  local head, id = string.match(joining, '^(.*:)(#%x+)$')
  if id then
    return head .. (redis.call('HGET', joins, id) or '')
  end
  return joining
end
