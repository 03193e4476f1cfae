--[[
  How long turns lasted in the rooms of the recent past, one entry per showtime: what a room
  that has not seen enough turns of its own yet can go by (queue/src/turn-history.ts).
  KEYS: 1 history hash (showtime id -> "meanTurnMs:turns:atMs")
  ARGV: 1 'record' | 'list'
        record: 2 showtime id, 3 mean turn ms, 4 turns seen, 5 now ms, 6 most entries kept
  Returns: record: {1, entries kept}; list: {1, id, entry, id, entry...}
]]
if ARGV[1] == 'record' then
  redis.call('HSET', KEYS[1], ARGV[2], string.format('%s:%s:%s', ARGV[3], ARGV[4], ARGV[5]))
  local most = tonumber(ARGV[6])
  local count = redis.call('HLEN', KEYS[1])
  if count > most then
    -- Drop the oldest entries: the history follows the recent sales.
    local flat = redis.call('HGETALL', KEYS[1])
    local entries = {}
    for i = 1, #flat, 2 do
      local atMs = tonumber(string.match(flat[i + 1], ':(%d+)$')) or 0
      entries[#entries + 1] = { flat[i], atMs }
    end
    table.sort(entries, function(a, b) return a[2] < b[2] end)
    for i = 1, count - most do redis.call('HDEL', KEYS[1], entries[i][1]) end
    count = most
  end
  return {1, count}
end
local reply = {1}
local flat = redis.call('HGETALL', KEYS[1])
for i = 1, #flat do reply[#reply + 1] = flat[i] end
return reply
