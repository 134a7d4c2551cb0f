-- The line's progress for everyone (queue/progress.rs, API.md "Progress"), read in one step so
-- that its parts agree: the line's length, the last arrival number given, the greatest one
-- admitted, the places at the sampled ranks, the seats as the ticker counted them and the
-- admitted buyers still shopping.
-- KEYS[1] queue (zset buyer -> arrival number), KEYS[2] seq (the last arrival number given),
-- KEYS[3] head (the greatest arrival number ever admitted), KEYS[4] inventory (hash),
-- KEYS[5] shopping (zset buyer -> admission expiry ms), KEYS[6] entrants (hash buyer ->
-- ticket), KEYS[7] the draw's record (present once made).
-- ARGV[1] the greatest share one sampled rank may lie past the one before ('0.01'), ARGV[2]
-- the most ranks sampled, ARGV[3] '1' when the sale has an opening (and so may have a draw to
-- make), ARGV[4..] the inventory's fields (queue/inventory.rs).
-- Returns {in_line, last_arrival, head, ranks, inventory, shopping, ahead, now_ms}: ranks is
-- the flat list rank, arrival, rank, arrival... (every rank of the first hundred, then each at
-- most ARGV[1] past the last, and the line's last place; as app::wire::Progress::sample_ranks
-- makes them); ahead the entrants still to be drawn in ahead of the line.
local now = redis.call('TIME')
local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local len = redis.call('ZCARD', KEYS[1])
local step = tonumber(ARGV[1])
local most = tonumber(ARGV[2])
local ranks = {}
local sampled = -1
local function sample(r)
  local at = redis.call('ZRANGE', KEYS[1], r, r, 'WITHSCORES')
  if at[2] then
    ranks[#ranks + 1] = tostring(r)
    ranks[#ranks + 1] = at[2]
    sampled = r
  end
end
local r = 0
while r < len and #ranks < 2 * (most - 1) do
  sample(r)
  r = math.max(math.floor(r * (1 + step)), r + 1)
end
if len > 0 and sampled ~= len - 1 then
  sample(len - 1)
end
local ahead = 0
if ARGV[3] == '1' then
  -- The entrants still to be put in line: all of them before the draw, then those behind the
  -- part of its order placed so far.
  local record = redis.call('HMGET', KEYS[7], 'entrants', 'placed')
  if record[1] then
    ahead = tonumber(record[1]) - tonumber(record[2] or record[1])
  else
    ahead = redis.call('HLEN', KEYS[6])
  end
end
local inventory = redis.call('HMGET', KEYS[4], unpack(ARGV, 4))
local shopping = redis.call('ZCOUNT', KEYS[5], '(' .. now_ms, '+inf')
return {
  len,
  tonumber(redis.call('GET', KEYS[2]) or '0'),
  tonumber(redis.call('GET', KEYS[3]) or '0'),
  ranks,
  inventory,
  shopping,
  ahead,
  now_ms,
}
