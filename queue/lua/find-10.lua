--[[
  Support's lookup: who holds a ticket, while that ticket is waiting in line (the ticket a
  queue id decodes to). Read-only. Admitted tickets have left the line: the core's turn
  ledger knows those.
  KEYS: room keys 1..10 (see includes/room.lua)
  ARGV: 1 ticket
  Returns: {1, customer ('' when no one waits with that ticket), position (0 if none),
            lineLength, preLength}
           -1 unknown room
]]
--- @include "room"

local ticket = tonumber(ARGV[1]) or 0
local s = loadSettings()
if not s then return {-1} end
local lineLength = redis.call('ZCARD', lineKey)
local preLength = undrawnCount(s)
local found = ticket > 0 and redis.call('ZRANGEBYSCORE', lineKey, ticket, ticket, 'LIMIT', 0, 1) or {}
local customer = found[1]
if not customer then return {1, '', 0, lineLength, preLength} end
local position = redis.call('ZRANK', lineKey, customer) + 1
-- While the draw is pending, pre-queue members are ahead of everyone in the line.
if s.state == 'opening' then position = position + preLength end
return {1, customer, position, lineLength, preLength}
