--[[
  Build the gate from the database, or bring it back in line with it: every seat of the
  showtime with its state in the database. A gate that is not built (never, or Redis lost it)
  starts empty; a built one leaves alone the seats written within the pending grace (a claim in
  flight, a release, an event or a repair newer than, or as new as, the caller's read of the
  database) and takes the database's word for the rest.
  Counts and the lapse set are then recomputed from the seats, so a gate that lost part of its
  keys is whole again.
  KEYS: gate keys 1..5 (see includes/gate.lua)
  ARGV: 1 maxPerCustomer, 2 holdTtlMs, 3 pending grace ms, 4 key time to live ms,
        then groups of five: seat, state, a, b, c with state
          'A' available, 'H' held (a expiresAtMs, b hold id, c customer), 'S' sold (a booking id, b customer)
  Returns: {1, changed, wasReady (1|0)}
]]
--- @include "gate"
local wasReady = isReady()
if not wasReady then
  redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
end
local graceMs = tonumber(ARGV[3]) or 0
local changed = 0
for i = 5, #ARGV - 4, 5 do
  local seat, state, a, b, c = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4]
  local raw = redis.call('HGET', KEYS[2], seat)
  local e = parseEntry(raw)
  local touched = wasReady and (tonumber(redis.call('HGET', KEYS[1], 't:' .. seat)) or 0) > nowMs - graceMs
  local want = raw
  if touched then
    -- newer than the caller's read, or as new: kept
  elseif state == 'S' then
    want = 'S|' .. a .. '|' .. b
  elseif state == 'H' and (tonumber(a) or 0) > nowMs then
    local at = nowMs
    if e and e.kind == 'held' and e.hold == b then at = e.at end
    want = 'H|' .. a .. '|' .. at .. '|' .. b .. '|' .. c
  else
    want = '0'
  end
  if raw ~= want then
    redis.call('HSET', KEYS[2], seat, want)
    changed = changed + 1
  end
end
-- Counts and lapse set from the seats themselves.
redis.call('DEL', KEYS[3], KEYS[4])
local all = redis.call('HGETALL', KEYS[2])
for i = 1, #all, 2 do
  local e = parseEntry(all[i + 1])
  if e.kind == 'held' then
    if e.exp > nowMs then
      redis.call('ZADD', KEYS[3], e.exp, all[i])
      addOwned(e.customer, 1)
    else
      redis.call('HSET', KEYS[2], all[i], '0')
    end
  elseif e.kind == 'sold' then
    addOwned(e.customer, 1)
  end
end
redis.call('HSET', KEYS[1], 'ready', '1', 'maxPerCustomer', ARGV[1], 'holdTtlMs', ARGV[2], 'syncedAtMs', nowMs)
local ttl = tonumber(ARGV[4])
if ttl then ttl = math.floor(ttl) end
if ttl and ttl > 0 then
  for k = 1, 5 do redis.call('PEXPIRE', KEYS[k], ttl) end
end
if wasReady then return {1, changed, 1} end
return {1, changed, 0}
