--[[
  Join the room (includes/join.lua) and answer with the customer's own place only, for a
  caller that already holds a recent picture of the room (the edge's snapshot) and works the
  wait out from it: the room-wide half of describe() (line length, the window, what the
  estimate learned, the head start) is most of a join's work inside Redis.
  KEYS: room keys 1..10 (see includes/room.lua), 11 this client address's places and churn
        (keys.ts forAddress; includes/join.lua)
  ARGV: 1 customerId, 2 client address ('' when unknown: not counted), 3 churn window ms
  Returns: {1, state, ticket, position, expiresAtMs, nowMs, roomState} (see placeOf)
           -1 unknown room, -2 closed, -3 sold out, -12 address has taken its places
           (or joined too often in the churn window)
]]
--- @include "room"
--- @include "describe"
--- @include "join"

local s, refused = joinFromArgs()
if not s then return refused end
local state, ticket, position, expiresAt = placeOf(s, ARGV[1], s.state == 'opening' and undrawnCount(s) or 0)
return {1, state, ticket, position, expiresAt, nowMs, s.state}
