--[[
  Puts back the admission sessions a lost copy of the room had granted, from the ledger the
  core keeps in PostgreSQL, so those turns keep working and count against the capacity again.
  A customer the room already knows (joined again since) keeps what the room has. The ticket
  sequence moves past every restored ticket.
  KEYS: room keys 1..10 (see includes/room.lua)
  ARGV: triples of customerId, ticket, sessionExpiresAtMs
  Returns: {1, restored}; -1 unknown room
]]
--- @include "room"

local s = loadSettings()
if not s then return {-1} end
local restored, maxTicket = 0, 0
for i = 1, #ARGV - 2, 3 do
  local customer, ticket, expiresAt = ARGV[i], tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2])
  if expiresAt > nowMs and redis.call('HEXISTS', whoKey, customer) == 0 then
    redis.call('ZADD', activeKey, expiresAt, customer)
    redis.call('HSET', whoKey, customer, ticket)
    restored = restored + 1
  end
  if ticket > maxTicket then maxTicket = ticket end
end
local seq = tonumber(redis.call('HGET', statsKey, 'seq')) or 0
if maxTicket > seq then redis.call('HSET', statsKey, 'seq', maxTicket) end
return {1, restored}
