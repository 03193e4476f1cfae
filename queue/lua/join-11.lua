--[[
  Join the room (includes/join.lua) and answer where the customer stands.
  KEYS: room keys 1..10 (see includes/room.lua), 11 addrs (hash address -> places taken)
  ARGV: 1 customerId, 2 client address ('' when unknown: not counted)
  Returns: the describe() reply {1, state, ticket, position, ...}
           -1 unknown room, -2 closed, -3 sold out, -12 address has taken its places
]]
--- @include "room"
--- @include "describe"
--- @include "join"

local s, refused = joinFromArgs()
if not s then return refused end
return describe(s, ARGV[1])
