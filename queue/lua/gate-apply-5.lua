--[[
  Tell the gate what the database did: a booking event (hold created or ended, booking
  confirmed, seats released by a refund or a cancellation) or the database's state of a few
  seats after it refused a claim. Each operation is guarded so a late or repeated one cannot
  undo a newer state: a hold's end frees only seats still under that hold, a release only seats
  sold to that booking; a seat the database sold stays sold until its booking releases it.
  KEYS: gate keys 1..5 (see includes/gate.lua)
  ARGV: 1 event id ('' = none: no dedupe), 2 pending grace ms (a claim younger than this is a
        database attempt in flight, kept by 'free'), then groups of five:
        op, seat, a, b, c with op
          'held'        a expiresAtMs, b hold id, c customer (a hold the database made)
          'sold'        a booking id, b customer
          'freehold'    a hold id (the hold ended)
          'freebooking' a booking id (its seats were released)
          'free'        (the database has the seat free)
  Returns: {1, changed, duplicate (1 if the event was applied before)}
           -20 the gate is not built for this showtime (its build reads the database anyway)
]]
--- @include "gate"
if not isReady() then return {-20} end
local eventId, graceMs = ARGV[1], tonumber(ARGV[2]) or 0
if eventId ~= '' then
  if redis.call('ZSCORE', KEYS[5], eventId) then return {1, 0, 1} end
  redis.call('ZADD', KEYS[5], nowMs, eventId)
  redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', nowMs - 86400000)
end
pruneLapsed()
local changed = 0
for i = 3, #ARGV - 4, 5 do
  local op, seat, a, b, c = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4]
  local raw = redis.call('HGET', KEYS[2], seat)
  local e = parseEntry(raw)
  if raw then
    if op == 'held' then
      local exp = tonumber(a) or 0
      local same = e.kind == 'held' and e.hold == b and e.exp == exp
      if exp > nowMs and e.kind ~= 'sold' and not same then
        local at = nowMs
        if e.kind == 'held' and e.hold == b then at = e.at end
        setHeld(seat, e, exp, at, b, c)
        changed = changed + 1
      end
    elseif op == 'sold' then
      if not (e.kind == 'sold' and e.booking == a) then
        setSold(seat, e, a, b)
        changed = changed + 1
      end
    elseif op == 'freehold' then
      if e.kind == 'held' and e.hold == a then
        setFree(seat, e)
        changed = changed + 1
      end
    elseif op == 'freebooking' then
      if e.kind == 'sold' and e.booking == a then
        setFree(seat, e)
        changed = changed + 1
      end
    elseif op == 'free' then
      local pending = e.kind == 'held' and e.exp > nowMs and e.at > nowMs - graceMs
      if e.kind ~= 'free' and not pending then
        setFree(seat, e)
        changed = changed + 1
      end
    end
  end
end
return {1, changed, 0}
