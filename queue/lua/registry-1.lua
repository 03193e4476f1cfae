--[[
  The set of showtime ids the ticker process drives.
  KEYS: 1 registry set
  ARGV: 1 'add' | 'remove' | 'list', 2 showtime id (add, remove)
  Returns: add/remove: {1, changed}; list: {1, showtimeId...}
]]
if ARGV[1] == 'add' then return {1, redis.call('SADD', KEYS[1], ARGV[2])} end
if ARGV[1] == 'remove' then return {1, redis.call('SREM', KEYS[1], ARGV[2])} end
local reply = {1}
local ids = redis.call('SMEMBERS', KEYS[1])
table.sort(ids)
for i = 1, #ids do reply[#reply + 1] = ids[i] end
return reply
