--[[
  The seat gate of one showtime: what Redis believes of each seat, ahead of the database (which
  stays the arbiter). Every gate script takes the same five keys:
    KEYS[1] meta   hash: ready (1 once built from the database), maxPerCustomer, holdTtlMs, syncedAtMs,
                   and 't:<seat>' -> when a claim, a release or the database's word last wrote the seat
    KEYS[2] seats  hash seat -> '0' free | 'H|<expiresAtMs>|<claimedAtMs>|<holdId>|<customer>' held
                   | 'S|<bookingId>|<customer>' sold; a seat missing from a built gate is unknown
    KEYS[3] lapse  zset seat -> expiresAtMs of its held entry (a held entry lapses with its hold)
    KEYS[4] owned  hash customer -> seats held (live) or sold: the per-customer count
    KEYS[5] seen   zset eventId -> applied at ms: booking events already applied (dedupe)
  Customer ids never contain '|', so the customer goes last in an entry.
]]
local clock = redis.call('TIME')
local nowMs = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)

local function parseEntry(value)
  if not value then return nil end
  local exp, at, hold, customer = string.match(value, '^H|(%d+)|(%d+)|([^|]*)|(.*)$')
  if exp then return { kind = 'held', exp = tonumber(exp), at = tonumber(at), hold = hold, customer = customer } end
  local booking, owner = string.match(value, '^S|([^|]*)|(.*)$')
  if booking then return { kind = 'sold', booking = booking, customer = owner } end
  return { kind = 'free' }
end

local function isTaken(e)
  return e ~= nil and (e.kind == 'sold' or (e.kind == 'held' and e.exp > nowMs))
end

local function addOwned(customer, delta)
  if redis.call('HINCRBY', KEYS[4], customer, delta) <= 0 then redis.call('HDEL', KEYS[4], customer) end
end

-- Undoes what an entry counts for (its owner's count, its place in the lapse set).
local function dropEntry(seat, e)
  if e == nil then return end
  if e.kind == 'held' then
    if redis.call('ZREM', KEYS[3], seat) == 1 then addOwned(e.customer, -1) end
  elseif e.kind == 'sold' then
    addOwned(e.customer, -1)
  end
end

local function readSeat(seat)
  return parseEntry(redis.call('HGET', KEYS[2], seat))
end

-- The seat was written by the hold path or by the database's word: a check (gate-sync) reading
-- the database at about this time leaves it alone, so it cannot put back an older state.
local function touch(seat)
  redis.call('HSET', KEYS[1], 't:' .. seat, nowMs)
end

local function setFree(seat, e)
  touch(seat)
  dropEntry(seat, e)
  redis.call('HSET', KEYS[2], seat, '0')
end

local function setHeld(seat, e, exp, at, hold, customer)
  touch(seat)
  dropEntry(seat, e)
  if exp <= nowMs then
    redis.call('HSET', KEYS[2], seat, '0')
    return
  end
  redis.call('HSET', KEYS[2], seat, 'H|' .. exp .. '|' .. at .. '|' .. hold .. '|' .. customer)
  redis.call('ZADD', KEYS[3], exp, seat)
  addOwned(customer, 1)
end

local function setSold(seat, e, booking, customer)
  touch(seat)
  dropEntry(seat, e)
  redis.call('HSET', KEYS[2], seat, 'S|' .. booking .. '|' .. customer)
  addOwned(customer, 1)
end

-- Held entries whose hold lapsed become free, by the clock, as the database's lapsed holds do.
local function pruneLapsed()
  local lapsed = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', nowMs)
  for _, seat in ipairs(lapsed) do
    local e = readSeat(seat)
    redis.call('ZREM', KEYS[3], seat)
    if e and e.kind == 'held' then
      addOwned(e.customer, -1)
      if e.exp <= nowMs then redis.call('HSET', KEYS[2], seat, '0') end
    end
  end
end

local function isReady()
  return redis.call('HGET', KEYS[1], 'ready') == '1'
end
