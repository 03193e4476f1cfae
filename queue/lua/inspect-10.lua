--[[
  Read-only view of a room for stats and the edge's snapshot. The seed stays hidden until
  the draw has revealed it.
  KEYS: room keys 1..10 (see includes/room.lua)
  ARGV: none
  Returns: {1, nowMs, preLength, lineLength, offered, active, admitsInWindow, headTicket,
            tailTicket, cfg (flat field/value list), stats (flat field/value list)}
           -1 unknown room
]]
--- @include "room"

local cfg = redis.call('HGETALL', cfgKey)
if #cfg == 0 then return {-1} end
local revealed = redis.call('HGET', cfgKey, 'seedRevealed') == '1'
local visible = {}
for i = 1, #cfg, 2 do
  if cfg[i] ~= 'seed' or revealed then
    visible[#visible + 1] = cfg[i]
    visible[#visible + 1] = cfg[i + 1]
  end
end
local head = redis.call('ZRANGE', lineKey, 0, 0, 'WITHSCORES')
local tail = redis.call('ZRANGE', lineKey, -1, -1, 'WITHSCORES')
return {1, nowMs, redis.call('ZCARD', preKey), redis.call('ZCARD', lineKey),
  redis.call('ZCARD', offersKey), redis.call('ZCARD', activeKey),
  redis.call('ZCOUNT', admitsKey, nowMs - RATE_WINDOW_MS, '+inf'),
  tonumber(head[2]) or 0, tonumber(tail[2]) or 0, visible, redis.call('HGETALL', statsKey)}
