--[[
  Poll: heartbeat plus where the customer stands. Also drives an admission step when the
  last one is older than tickGapMs, so a room advances even without the ticker process.
  KEYS: room keys 1..10 (see includes/room.lua)
  ARGV: 1 customerId
  Returns: the describe() reply {1, state, ticket, position, ...}; -1 unknown room
]]
--- @include "room"
--- @include "describe"

local customer = ARGV[1]
local s = loadSettings()
if not s then return {-1} end
restoreIfParked(s, customer)
if redis.call('HEXISTS', whoKey, customer) == 1 then
  redis.call('HSET', beatKey, customer, nowMs)
end
advanceIfDue(s)
return describe(s, customer)
