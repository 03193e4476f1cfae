--[[
  Claim seats at the gate before the database is asked: every requested seat free (a lapsed
  hold counts as free) and the customer's count plus these seats within the showtime's limit,
  or nothing is written. A claim is only permission to try: the caller asks the database next
  and undoes the claim (gate-release) if the database says no.
  KEYS: gate keys 1..5 (see includes/gate.lua)
  ARGV: 1 customer id, 2 hold id (the one the database hold will carry), 3.. seat codes (distinct)
  Returns: {1, decision, expiresAtMs, owned, maxPerCustomer, seats...}
           decision 1 claimed (held until expiresAtMs), 0 taken (seats: the taken ones),
           2 over the per-customer limit (owned: what the customer has), 3 unknown seats (seats:
           those the gate does not know; nothing claimed, the database decides)
           -20 the gate is not built for this showtime (nothing claimed)
]]
--- @include "gate"
if not isReady() then return {-20} end
pruneLapsed()
local customer, hold = ARGV[1], ARGV[2]
local maxPerCustomer = tonumber(redis.call('HGET', KEYS[1], 'maxPerCustomer')) or 0
local holdTtlMs = tonumber(redis.call('HGET', KEYS[1], 'holdTtlMs')) or 0
local owned = tonumber(redis.call('HGET', KEYS[4], customer)) or 0
local taken, unknown, entries = {}, {}, {}
for i = 3, #ARGV do
  local raw = redis.call('HGET', KEYS[2], ARGV[i])
  if not raw then
    unknown[#unknown + 1] = ARGV[i]
  else
    local e = parseEntry(raw)
    entries[i] = e
    if isTaken(e) then taken[#taken + 1] = ARGV[i] end
  end
end
if #unknown > 0 then return {1, 3, 0, owned, maxPerCustomer, unpack(unknown)} end
if #taken > 0 then return {1, 0, 0, owned, maxPerCustomer, unpack(taken)} end
local n = #ARGV - 2
if owned + n > maxPerCustomer then return {1, 2, 0, owned, maxPerCustomer} end
local expiresAt = nowMs + holdTtlMs
for i = 3, #ARGV do setHeld(ARGV[i], entries[i], expiresAt, nowMs, hold, customer) end
return {1, 1, expiresAt, owned + n, maxPerCustomer}
