-- Joining the room, shared by join (which answers with describe()) and enter (which answers
-- with the buyer's own place only): one place per customer per showtime. Joining again while
-- holding a place keeps that place; after the place is gone (left, released, expired) it
-- queues anew. A new place counts against the client address's cap (cfg placesPerAddress),
-- atomically here, so a burst from one address cannot slip past it.
-- joinFromArgs reads KEYS[11] (this address's hash, below), ARGV[1] customerId, ARGV[2] address
-- ('' when unknown: not counted) and ARGV[3] the churn window in ms, and returns the settings
-- once the customer holds a place, or nil and the refusal reply: -1 unknown room, -2 closed,
-- -3 sold out, -12 address has taken its places (or joined too often in the churn window).
--
-- The address's hash holds, per customer, when it took a place through this address (a place
-- that may still be live), and CHURN_FIELD. Places are counted while they are live: at the cap
-- the entries whose places have ended (left, expired, released, abandoned) are dropped, so
-- leaving gives a place back. A counter that only grew would let one identity joining and
-- leaving lock everyone behind its address (an office, a phone network) out for days. Churn
-- is bounded instead: at most CHURN_FACTOR x the cap new places per window, counted over a
-- sliding window (two fixed windows, the older weighted by the share of it still inside).
local CHURN_FIELD = '#churn'
-- Where the last drop of ended places stopped (an HSCAN cursor), so each join at the cap goes
-- on from there. Customer ids never start with '#' (lib/customer-id.ts).
local CURSOR_FIELD = '#cursor'
-- Places checked per join at the cap: bounded, so a room whose operator allows a million
-- places per address never runs a million checks in one script (Redis would stall).
local PRUNE_CHECKS = 256
local CHURN_FACTOR = 4
local ADDRESS_KEY_TTL_MS = 24 * 3600 * 1000

-- The churn counts rolled forward to now: window index, joins in it, joins in the one before.
local function churnNow(addrKey, windowMs)
  local index = math.floor(nowMs / windowMs)
  local v = redis.call('HGET', addrKey, CHURN_FIELD)
  local at, current, previous = index, 0, 0
  if v then
    local i, c, p = string.match(v, '^(%d+) (%d+) (%d+)$')
    i, c, p = tonumber(i), tonumber(c), tonumber(p)
    if i == index then current, previous = c, p elseif i == index - 1 then previous = c end
  end
  local weighted = current + previous * (1 - (nowMs % windowMs) / windowMs)
  return at, current, previous, weighted
end

-- Places through this address that may still be live. Only at the cap are ended ones
-- dropped, and only until one is found (one is all a join needs) or PRUNE_CHECKS were checked,
-- going on from where the last join at the cap stopped.
local function livePlaces(addrKey, cap)
  local n = redis.call('HLEN', addrKey) - redis.call('HEXISTS', addrKey, CHURN_FIELD)
    - redis.call('HEXISTS', addrKey, CURSOR_FIELD)
  if n < cap then return n end
  local cursor = redis.call('HGET', addrKey, CURSOR_FIELD) or '0'
  local checked = 0
  repeat
    local page = redis.call('HSCAN', addrKey, cursor, 'COUNT', 64)
    cursor = page[1]
    local fields = page[2]
    for i = 1, #fields, 2 do
      local customer = fields[i]
      if string.sub(customer, 1, 1) ~= '#' then
        checked = checked + 1
        if not holdsPlace(customer) then
          redis.call('HDEL', addrKey, customer)
          n = n - 1
        end
      end
    end
  until cursor == '0' or checked >= PRUNE_CHECKS or n < cap
  redis.call('HSET', addrKey, CURSOR_FIELD, cursor)
  return n
end

-- Counts a new place against the address, or answers the refusal.
local function countAgainstAddress(addrKey, customer, windowMs)
  local cap = tonumber(redis.call('HGET', cfgKey, 'placesPerAddress')) or 200
  local at, current, previous, weighted = churnNow(addrKey, windowMs)
  if weighted >= CHURN_FACTOR * cap then return {-12} end
  if livePlaces(addrKey, cap) >= cap then return {-12} end
  redis.call('HSET', addrKey, customer, nowMs, CHURN_FIELD, at .. ' ' .. (current + 1) .. ' ' .. previous)
  redis.call('PEXPIRE', addrKey, math.max(ADDRESS_KEY_TTL_MS, 2 * windowMs))
  return nil
end

local function joinRoom(s, customer, address, addrKey, churnWindowMs)
  freezeIfDue(s)
  -- Sweep first, so a customer whose offer or session just ran out queues anew.
  expire(s)
  if s.state == 'closed' then return {-2} end
  if s.state == 'sold_out' then return {-3} end

  restoreIfParked(s, customer)
  if not holdsPlace(customer) then
    if address ~= '' then
      local refused = countAgainstAddress(addrKey, customer, churnWindowMs)
      if refused then return refused end
    end
    local ticket = 0
    if s.state == 'scheduled' then
      redis.call('ZADD', preKey, 0, customer)
      redis.call('HSET', whoKey, customer, 0)
    else
      ticket = redis.call('HINCRBY', statsKey, 'seq', 1)
      redis.call('ZADD', lineKey, ticket, customer)
      redis.call('HSET', whoKey, customer, ticket)
    end
    -- Rank 0: in the pre-queue, placed by the draw (a `d` entry).
    journal(s, {entry('j', customer, ticket)})
    redis.call('HINCRBY', statsKey, 'joined', 1)
  end
  redis.call('HSET', beatKey, customer, nowMs)
  advanceIfDue(s)
  return nil
end

local function joinFromArgs()
  local s = loadSettings()
  if not s then return nil, {-1} end
  local churnWindowMs = math.max(1, tonumber(ARGV[3]) or 3600000)
  local refused = joinRoom(s, ARGV[1], ARGV[2] or '', KEYS[11], churnWindowMs)
  if refused then return nil, refused end
  return s
end
