--[[
  Undo a claim the database did not turn into a hold: frees the seats still held under this
  hold id, and only those (a seat someone else claimed since is left alone).
  KEYS: gate keys 1..5 (see includes/gate.lua)
  ARGV: 1 hold id, 2.. seat codes
  Returns: {1, freed}
]]
--- @include "gate"
local freed = 0
for i = 2, #ARGV do
  local e = readSeat(ARGV[i])
  if e and e.kind == 'held' and e.hold == ARGV[1] then
    setFree(ARGV[i], e)
    freed = freed + 1
  end
end
return {1, freed}
