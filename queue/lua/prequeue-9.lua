--[[
  The input of the opening draw: the frozen pre-queue in customer id order (the pre-queue
  zset scores are all 0, so Redis orders it by member) and the secret seed. Freezes a due
  room first.
  KEYS: room keys 1..9 (see includes/room.lua)
  ARGV: none
  Returns: {1, roomState, seed, customerId...} (members only while state is 'opening')
           -1 unknown room
]]
--- @include "room"

local s = loadSettings()
if not s then return {-1} end
freezeIfDue(s)
local reply = {1, s.state, redis.call('HGET', cfgKey, 'seed') or ''}
if s.state == 'opening' then
  local members = redis.call('ZRANGE', preKey, 0, -1)
  for i = 1, #members do reply[#reply + 1] = members[i] end
end
return reply
