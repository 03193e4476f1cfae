--[[
  Join the room (includes/join.lua) and answer where the customer stands.
  KEYS: room keys 1..10 (see includes/room.lua), 11 this client address's places and churn
        (keys.ts forAddress; includes/join.lua)
  ARGV: 1 customerId, 2 client address ('' when unknown: not counted), 3 churn window ms
  Returns: the describe() reply {1, state, ticket, position, ...}
           -1 unknown room, -2 closed, -3 sold out, -12 address has taken its places
           (or joined too often in the churn window)
]]
--- @include "room"
--- @include "describe"
--- @include "join"

local s, refused = joinFromArgs()
if not s then return refused end
return describe(s, ARGV[1])
