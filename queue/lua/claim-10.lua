--[[
  Claim an offered place: the offer becomes an admission session. Claiming again while
  admitted returns the same session, so concurrent claims admit once.
  KEYS: room keys 1..10 (see includes/room.lua)
  ARGV: 1 customerId
  Returns: {1, ticket, sessionExpiresAtMs, alreadyAdmitted (0|1)}
           -1 unknown room, -2 closed, -3 sold out, -4 not offered (or offered while every
           slot is taken, or every free slot is due to a buyer ahead: claim again shortly),
           -5 offer expired,
           -6 turn expired (skipped or session over: join again)
]]
--- @include "room"

local customer = ARGV[1]
local s = loadSettings()
if not s then return {-1} end
local ticket = tonumber(redis.call('HGET', whoKey, customer)) or 0
local session = redis.call('ZSCORE', activeKey, customer)
if session and tonumber(session) > nowMs then return {1, ticket, tonumber(session), 1} end
if s.state == 'closed' then return {-2} end
if s.state == 'sold_out' then return {-3} end
local offer = redis.call('ZSCORE', offersKey, customer)
if not offer then
  if redis.call('ZSCORE', lineKey, customer) or redis.call('ZSCORE', preKey, customer) then return {-4} end
  if ticket > 0 then return {-6} end
  return {-4}
end
if tonumber(offer) <= nowMs then
  redis.call('ZREM', offersKey, customer)
  redis.call('HINCRBY', statsKey, 'offersExpired', 1)
  return {-5}
end
-- Offers may run beyond the free slots (see offerToHead): a claim waits for a slot, and the
-- buyer, plainly still here, keeps the offer for a full window meanwhile.
local free = s.capacity - redis.call('ZCARD', activeKey)
if free <= 0 then
  redis.call('ZADD', offersKey, math.max(tonumber(offer), nowMs + s.offerWindowMs), customer)
  return {-4}
end
-- Where the offers outnumber the free slots, the slots go in ticket order: a buyer with an
-- earlier ticket whose offer is open and who was seen within FRESH_MS counts ahead, and this
-- claim waits while as many are ahead as slots are free. Otherwise whoever polled first after
-- a slot freed took it, and at the last seats a buyer behind could take the turn of one ahead
-- who was polling as asked. One who vanished after the offer stops counting within FRESH_MS.
if redis.call('ZCARD', offersKey) > free then
  local ahead = 0
  local seenSince = nowMs - FRESH_MS
  for _, other in ipairs(redis.call('ZRANGEBYSCORE', offersKey, '(' .. nowMs, '+inf')) do
    local otherTicket = tonumber(redis.call('HGET', whoKey, other)) or 0
    if other ~= customer and otherTicket > 0 and otherTicket < ticket
       and (tonumber(redis.call('HGET', beatKey, other)) or 0) >= seenSince then
      ahead = ahead + 1
      if ahead >= free then
        redis.call('ZADD', offersKey, math.max(tonumber(offer), nowMs + s.offerWindowMs), customer)
        return {-4}
      end
    end
  end
end
learnOutcomes(1, 0)
learnClaim(s, tonumber(offer))
local expiresAt = nowMs + s.sessionTtlMs
redis.call('ZREM', offersKey, customer)
redis.call('ZADD', activeKey, expiresAt, customer)
redis.call('HINCRBY', statsKey, 'admitted', 1)
return {1, ticket, expiresAt, 0}
