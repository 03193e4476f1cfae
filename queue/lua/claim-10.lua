--[[
  Claim an offered place: the offer becomes an admission session. Claiming again while
  admitted returns the same session, so concurrent claims admit once.
  KEYS: room keys 1..10 (see includes/room.lua)
  ARGV: 1 customerId
  Returns: {1, ticket, sessionExpiresAtMs, alreadyAdmitted (0|1)}
           -1 unknown room, -2 closed, -3 sold out, -4 not offered (or offered while every
           slot is taken: claim again shortly), -5 offer expired,
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
if redis.call('ZCARD', activeKey) >= s.capacity then
  redis.call('ZADD', offersKey, math.max(tonumber(offer), nowMs + s.offerWindowMs), customer)
  return {-4}
end
learnOutcomes(1, 0)
learnClaim(s, tonumber(offer))
local expiresAt = nowMs + s.sessionTtlMs
redis.call('ZREM', offersKey, customer)
redis.call('ZADD', activeKey, expiresAt, customer)
redis.call('HINCRBY', statsKey, 'admitted', 1)
return {1, ticket, expiresAt, 0}
