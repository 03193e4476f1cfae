--[[
  Apply one chunk of the opening draw. The caller computed the whole drawn order from the
  frozen pre-queue and the committed seed; this places positions offset+1 .. offset+#chunk
  on the reserved tickets (drawBase + position). Chunks go in order: one whose offset is not
  where the draw stands (another process got there first) changes nothing and says where
  it stands. Members who left meanwhile (`who` no longer 0) are skipped; their tickets stay
  unused. The last chunk opens the room and reveals the seed.
  KEYS: room keys 1..10 (see includes/room.lua)
  ARGV: 1 offset, 2 total (pre-queue size the order was computed from), 3.. customer ids
  Journals a `d` entry per member placed (rank, index in the sorted pre-queue, its size).
  Returns: {1, drawNext, done (0|1), placed}; -1 unknown room, -8 the pre-queue is not the
           one the order was computed from, -9 room is not opening (the draw is over)
]]
--- @include "room"

local offset, total = tonumber(ARGV[1]), tonumber(ARGV[2])
local s = loadSettings()
if not s then return {-1} end
if s.state ~= 'opening' then return {-9} end
if redis.call('ZCARD', preKey) ~= total then return {-8} end
local drawNext = tonumber(redis.call('HGET', statsKey, 'drawNext')) or 0
if offset ~= drawNext then return {1, drawNext, 0, 0} end
local base = tonumber(redis.call('HGET', statsKey, 'drawBase')) or 0
local placed = 0
local entries = {}
for i = 3, #ARGV do
  local customer = ARGV[i]
  local position = offset + i - 2
  if redis.call('HGET', whoKey, customer) == '0' and redis.call('ZSCORE', preKey, customer) then
    redis.call('ZADD', lineKey, base + position, customer)
    redis.call('HSET', whoKey, customer, base + position)
    -- Everyone starts the open sale with a fresh heartbeat.
    redis.call('HSET', beatKey, customer, nowMs)
    placed = placed + 1
    -- The member's index in the sorted pre-queue (the draw's input order) and its size: with
    -- the revealed seed, anyone recomputes where the draw put that index.
    entries[#entries + 1] = entry('d', customer, base + position) .. '|' .. redis.call('ZRANK', preKey, customer) .. '|' .. total
  end
end
journal(s, entries)
drawNext = offset + #ARGV - 2
redis.call('HINCRBY', statsKey, 'drawn', placed)
if drawNext >= total then
  -- UNLINK: a 100,000-member set is freed in the background, not inside this call.
  redis.call('UNLINK', preKey)
  redis.call('HDEL', statsKey, 'drawNext')
  redis.call('HSET', cfgKey, 'state', 'open', 'seedRevealed', '1')
  return {1, drawNext, 1, placed}
end
redis.call('HSET', statsKey, 'drawNext', drawNext)
return {1, drawNext, 0, placed}
