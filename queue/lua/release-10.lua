--[[
  Give an admission (or an unclaimed offer) back at once: booking done, hold cancelled or
  expired. The freed slot is offered to the head of the line in the same call.
  KEYS: room keys 1..10 (see includes/room.lua)
  ARGV: 1 customerId
  Returns: {1, freed (0|1), offered}; -1 unknown room
]]
--- @include "room"

local customer = ARGV[1]
local s = loadSettings()
if not s then return {-1} end
learnEarlyEnd(s, customer)
local freed = redis.call('ZREM', activeKey, customer) + redis.call('ZREM', offersKey, customer)
local offered = 0
if freed > 0 then
  redis.call('HDEL', whoKey, customer)
  redis.call('HDEL', beatKey, customer)
  redis.call('HINCRBY', statsKey, 'released', 1)
  offered = advance(s)
end
return {1, freed, offered}
