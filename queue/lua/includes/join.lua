-- Joining the room, shared by join (which answers with describe()) and enter (which answers
-- with the buyer's own place only): one place per customer per showtime. Joining again while
-- holding a place keeps that place; after the place is gone (left, released, expired) it
-- queues anew. A new place counts against the client address's cap (cfg placesPerAddress),
-- atomically here, so a burst from one address cannot slip past it.
-- joinFromArgs reads KEYS[11] (addrs), ARGV[1] customerId and ARGV[2] address ('' when unknown:
-- not counted), and returns the settings once the customer holds a place, or nil and the
-- refusal reply: -1 unknown room, -2 closed, -3 sold out, -12 address has taken its places.
local ADDRESS_COUNTS_TTL_MS = 7 * 24 * 3600 * 1000

local function joinRoom(s, customer, address, addrsKey)
  freezeIfDue(s)
  -- Sweep first, so a customer whose offer or session just ran out queues anew.
  expire(s)
  if s.state == 'closed' then return {-2} end
  if s.state == 'sold_out' then return {-3} end

  restoreIfParked(s, customer)
  if not holdsPlace(customer) then
    if address ~= '' then
      local cap = tonumber(redis.call('HGET', cfgKey, 'placesPerAddress')) or 200
      if (tonumber(redis.call('HGET', addrsKey, address)) or 0) >= cap then return {-12} end
      redis.call('HINCRBY', addrsKey, address, 1)
      redis.call('PEXPIRE', addrsKey, ADDRESS_COUNTS_TTL_MS)
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
  local refused = joinRoom(s, ARGV[1], ARGV[2] or '', KEYS[11])
  if refused then return nil, refused end
  return s
end
