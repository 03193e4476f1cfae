--[[
  Leave the room from wherever the customer stands (page closed, gave up). A freed slot is
  offered to the head of the line in the same call. From the opening on, the pre-queue set
  is frozen for the chunked draw: a member leaving then loses only the `who` entry, and the
  draw skips whoever has no `who` 0 left, so a leave never disturbs (or stalls) the draw.
  KEYS: room keys 1..10 (see includes/room.lua)
  ARGV: 1 customerId
  Returns: {1, removed (0|1), offered}; -1 unknown room
]]
--- @include "room"

local customer = ARGV[1]
local s = loadSettings()
if not s then return {-1} end
learnEarlyEnd(s, customer)
local rank = redis.call('HGET', whoKey, customer)
local freed = redis.call('ZREM', activeKey, customer) + redis.call('ZREM', offersKey, customer)
local removed = freed + redis.call('ZREM', lineKey, customer)
if s.state ~= 'opening' then removed = removed + redis.call('ZREM', preKey, customer) end
removed = removed + redis.call('HDEL', whoKey, customer)
redis.call('HDEL', beatKey, customer)
local offered = 0
if removed > 0 then
  redis.call('HINCRBY', statsKey, 'left', 1)
  if rank then journal(s, {entry('l', customer, math.abs(tonumber(rank)))}) end
end
if freed > 0 then offered = advance(s) end
return {1, removed > 0 and 1 or 0, offered}
