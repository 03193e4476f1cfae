--[[
  The closed loop's decision for one room (queue/src/admission-governor.ts): the effective
  admission rate, the cap on turns from the seats left, until when they hold, and what the
  operator and the buyers are told (reason, seats left, seats per hold). Only `ctl…` fields.
  KEYS: room keys 1..10 (see includes/room.lua)
  ARGV: field/value pairs, each field starting with 'ctl'
  Returns: {1, written}; -1 unknown room (the loop never creates one).
]]
--- @include "room"

if redis.call('EXISTS', cfgKey) == 0 then return {-1} end
local written = 0
for i = 1, #ARGV - 1, 2 do
  if string.sub(ARGV[i], 1, 3) == 'ctl' then
    redis.call('HSET', cfgKey, ARGV[i], ARGV[i + 1])
    written = written + 1
  end
end
return {1, written}
