--[[
  The fairness journal of one room, for the core's copier (queue/src/fairness-journal.ts):
  read the oldest elements (each one call's entries, see includes/room.lua), or drop the ones the
  admission log already holds. Dropping goes by the entries' own numbers, never by a count, so
  two copiers trimming at once drop each element once, and one appended since is never lost.
  KEYS: 1 journal list (room key 10, see includes/room.lua)
  ARGV: 'read', 2 most elements | 'trim', 2 epoch, 3 last copied sequence number
  Returns: read: {1, element...}; trim: {1, elements dropped}
]]
if ARGV[1] == 'read' then
  local reply = {1}
  local entries = redis.call('LRANGE', KEYS[1], 0, math.floor(tonumber(ARGV[2])) - 1)
  for i = 1, #entries do reply[#reply + 1] = entries[i] end
  return reply
end
local epoch, last = ARGV[2], tonumber(ARGV[3])
local dropped = 0
while true do
  local head = redis.call('LINDEX', KEYS[1], 0)
  if not head then break end
  local headEpoch, first = string.match(head, '^(%d+)%.(%d+)\n')
  local _, entries = string.gsub(head, '\n', '')
  if headEpoch ~= epoch or tonumber(first) + entries - 1 > last then break end
  redis.call('LPOP', KEYS[1])
  dropped = dropped + 1
end
return {1, dropped}
