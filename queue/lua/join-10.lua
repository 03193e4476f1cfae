--[[
  Join the room: one place per customer per showtime. Joining again while holding a place
  returns that place; after the place is gone (left, released, expired) it queues anew.
  KEYS: room keys 1..9 (see includes/room.lua)
  ARGV: 1 customerId
  Returns: the describe() reply {1, state, ticket, position, ...}
           -1 unknown room, -2 closed, -3 sold out
]]
--- @include "room"
--- @include "describe"

local customer = ARGV[1]
local s = loadSettings()
if not s then return {-1} end
freezeIfDue(s)
-- Sweep first, so a customer whose offer or session just ran out queues anew.
expire()
if s.state == 'closed' then return {-2} end
if s.state == 'sold_out' then return {-3} end

local holdsPlace = redis.call('ZSCORE', activeKey, customer) or redis.call('ZSCORE', offersKey, customer)
  or redis.call('ZSCORE', lineKey, customer) or redis.call('ZSCORE', preKey, customer)
if not holdsPlace then
  if s.state == 'scheduled' then
    redis.call('ZADD', preKey, 0, customer)
    redis.call('HSET', whoKey, customer, 0)
  else
    local ticket = redis.call('HINCRBY', statsKey, 'seq', 1)
    redis.call('ZADD', lineKey, ticket, customer)
    redis.call('HSET', whoKey, customer, ticket)
  end
  redis.call('HINCRBY', statsKey, 'joined', 1)
end
redis.call('HSET', beatKey, customer, nowMs)
advanceIfDue(s)
return describe(s, customer)
