--[[
  Operator settings, applied live. Fields not given keep their value; defaults fill fields
  never set. The commit-reveal seed is stored once and kept for the room's lifetime.
  KEYS: room keys 1..10 (see includes/room.lua)
  ARGV: 1 seed (hex), 2 sha256(seed) (hex), 3 requested state or '',
        4 number of field/value pairs to set (n), 5.. n pairs to set, then default pairs
  Returns: {1, state, applied (1|0)}; -7 cannot schedule a room that has already opened.
           state 'opening' means the draw is pending (and a requested pause not yet applied);
           applied 0: the pairs carry a `version` older than the room's, nothing changed
  Closing ends every turn: offers and admission sessions are dropped at once.
  A closed or sold-out room's keys expire after closedRetentionMs (its waiters are still told
  why until then); a room that opens again keeps its keys for good.
]]
--- @include "room"

local requested = ARGV[3]
local setPairs = tonumber(ARGV[4])
local openedAt = redis.call('HGET', statsKey, 'openedAtMs')
if requested == 'scheduled' and openedAt then return {-7} end

local firstDefault = 5 + setPairs * 2
for i = 5, firstDefault - 1, 2 do
  if ARGV[i] == 'version' then
    local current = tonumber(redis.call('HGET', cfgKey, 'version')) or 0
    if tonumber(ARGV[i + 1]) < current then
      return {1, redis.call('HGET', cfgKey, 'state'), 0}
    end
  end
end
for i = 5, firstDefault - 1, 2 do
  -- A new admission rate makes the rate learned under the old one meaningless for estimates.
  if ARGV[i] == 'admitPerMinute' and redis.call('HGET', cfgKey, ARGV[i]) ~= ARGV[i + 1] then
    redis.call('HDEL', statsKey, 'lrnBusyMs', 'lrnBusyAdm')
  end
  redis.call('HSET', cfgKey, ARGV[i], ARGV[i + 1])
end
for i = firstDefault, #ARGV, 2 do redis.call('HSETNX', cfgKey, ARGV[i], ARGV[i + 1]) end
redis.call('HSETNX', cfgKey, 'seedHash', ARGV[2])
redis.call('HSETNX', cfgKey, 'seed', ARGV[1])

local s = loadSettings()
if requested == 'open' then
  if s.state == 'opening' then
    -- The draw is pending and opens the room itself.
  elseif s.state == 'scheduled' or not openedAt then
    -- Opening now is "scheduled, due now": the pre-queue draw still happens.
    redis.call('HSET', cfgKey, 'state', 'scheduled', 'opensAtMs', nowMs)
    s.state, s.opensAtMs = 'scheduled', nowMs
  else
    redis.call('HSET', cfgKey, 'state', 'open')
    s.state = 'open'
  end
elseif requested ~= '' and (s.state ~= 'opening' or requested == 'closed' or requested == 'sold_out') then
  -- While the draw is pending only closing applies; the engine re-applies a pause after
  -- the draw, so pre-queue members are never stranded outside the line.
  redis.call('HSET', cfgKey, 'state', requested)
  s.state = requested
end
freezeIfDue(s)
if requested == 'closed' then
  redis.call('DEL', activeKey, offersKey)
end
local ended = s.state == 'closed' or s.state == 'sold_out'
-- PEXPIRE wants a whole positive number of milliseconds.
local retentionMs = tonumber(redis.call('HGET', cfgKey, 'closedRetentionMs'))
if retentionMs then retentionMs = math.max(1, math.floor(retentionMs)) end
for i = 1, #KEYS do
  if ended and retentionMs then redis.call('PEXPIRE', KEYS[i], retentionMs) else redis.call('PERSIST', KEYS[i]) end
end
return {1, s.state, 1}
