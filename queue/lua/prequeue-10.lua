--[[
  The input of the opening draw, one page at a time: the frozen pre-queue in customer id
  order (its zset scores are all 0, so Redis orders it by member), the secret seed, and how
  far the draw has been applied. Freezes a due room first. Pages keep every call short
  however long the pre-queue is; the set does not change while the room is opening.
  KEYS: room keys 1..10 (see includes/room.lua)
  ARGV: 1 offset, 2 page size
  Returns: {1, roomState, seed, total, drawNext, customerId...} (members only while 'opening')
           -1 unknown room
]]
--- @include "room"

-- ZRANGE wants integers: a fractional page (a caller's arithmetic) reads the whole entries.
local offset, count = math.floor(tonumber(ARGV[1]) or 0), math.floor(tonumber(ARGV[2]) or 0)
local s = loadSettings()
if not s then return {-1} end
freezeIfDue(s)
local reply = {1, s.state, redis.call('HGET', cfgKey, 'seed') or '', redis.call('ZCARD', preKey),
  tonumber(redis.call('HGET', statsKey, 'drawNext')) or 0}
if s.state == 'opening' and count > 0 then
  local members = redis.call('ZRANGE', preKey, offset, offset + count - 1)
  for i = 1, #members do reply[#reply + 1] = members[i] end
end
return reply
