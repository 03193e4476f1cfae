--[[
  One admission step: open a due room, expire sessions and offers, offer free places to the
  head of the line within the rate budget. Safe to call from many processes at once.
  KEYS: room keys 1..10 (see includes/room.lua)
  ARGV: none
  Returns: {1, offered, skipped, roomState}; -1 unknown room.
           roomState 'opening' means the pre-queue draw is pending (see draw-10.lua).
]]
--- @include "room"

local s = loadSettings()
if not s then return {-1} end
local offered, skipped = advance(s)
return {1, offered, skipped, s.state}
