--[[
  Apply the opening draw: the pre-queue, in the shuffled order computed from the committed
  seed, takes the reserved tickets; the room opens and the seed is revealed.
  KEYS: room keys 1..9 (see includes/room.lua)
  ARGV: 1.. customer ids in drawn order
  Returns: {1, placed}; -1 unknown room, -8 pre-queue changed since it was read (read again),
           -9 room is not opening (someone else applied the draw)
]]
--- @include "room"

local s = loadSettings()
if not s then return {-1} end
if s.state ~= 'opening' then return {-9} end
if redis.call('ZCARD', preKey) ~= #ARGV then return {-8} end
for i = 1, #ARGV do
  if not redis.call('ZSCORE', preKey, ARGV[i]) then return {-8} end
end
local base = tonumber(redis.call('HGET', statsKey, 'drawBase')) or 0
for i = 1, #ARGV do
  redis.call('ZADD', lineKey, base + i, ARGV[i])
  redis.call('HSET', whoKey, ARGV[i], base + i)
  -- Everyone starts the open sale with a fresh heartbeat.
  redis.call('HSET', beatKey, ARGV[i], nowMs)
end
redis.call('DEL', preKey)
redis.call('HSET', cfgKey, 'state', 'open', 'seedRevealed', '1')
redis.call('HSET', statsKey, 'drawn', #ARGV)
return {1, #ARGV}
