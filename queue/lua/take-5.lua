--[[
  Dual token bucket for purchase routes: takes `cost` from the customer's bucket AND the
  showtime's bucket, or from neither. Buckets start full and refill continuously.
  With requireAdmission, the customer must also hold a live admission session, and the one
  their token names (routes that start a purchase: a token outliving a released slot, or one
  from before the buyer left and joined again, must not let its holder in again).
  A room with no copy in Redis at all (lost, not yet restored from PostgreSQL) knows nothing:
  the turn keeps working (the failure policy); the restore brings its turns back from the
  core's ledger (restore-10.lua), and from then on they are checked again.
  KEYS: 1 room cfg (per-showtime overrides), 2 customer bucket, 3 showtime bucket,
        4 room active sessions (zset customer -> session expiry ms),
        5 room who (hash customer -> ticket)
  ARGV: 1 cost, 2 default customer capacity, 3 default customer refill per minute,
        4 default showtime capacity, 5 default showtime refill per second,
        6 customer id, 7 requireAdmission (1|0),
        8 the token's ticket ('' = any session)
  Returns: {allowed (1|0), retryAfterMs, customerTokensLeft, showtimeTokensLeft, admission}
           admission: 1 live session, 2 not known (no copy of the room), 0 not checked
           -10 cost exceeds a bucket's capacity (can never succeed)
           -11 no live admission session (nothing charged)
]]
local clock = redis.call('TIME')
local nowMs = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local cost = tonumber(ARGV[1])
local v = redis.call('HMGET', KEYS[1], 'customerBucketCapacity', 'customerRefillPerMinute',
  'showtimeBucketCapacity', 'showtimeRefillPerSecond')
local customerCap = tonumber(v[1]) or tonumber(ARGV[2])
local customerRatePerMs = (tonumber(v[2]) or tonumber(ARGV[3])) / 60000
local showCap = tonumber(v[3]) or tonumber(ARGV[4])
local showRatePerMs = (tonumber(v[4]) or tonumber(ARGV[5])) / 1000
if cost > customerCap or cost > showCap then return {-10} end
local admission = 0
if ARGV[7] == '1' then
  local customer, ticket = ARGV[6], ARGV[8]
  local sessionEndsAt = tonumber(redis.call('ZSCORE', KEYS[4], customer))
  local current = redis.call('HGET', KEYS[5], customer)
  if sessionEndsAt and sessionEndsAt > nowMs and (ticket == '' or current == ticket) then
    admission = 1
  elseif redis.call('EXISTS', KEYS[1]) == 0 then
    admission = 2
  else
    return {-11}
  end
end

local function level(key, cap, ratePerMs)
  local b = redis.call('HMGET', key, 'tokens', 'atMs')
  local tokens = tonumber(b[1]) or cap
  local at = tonumber(b[2]) or nowMs
  return math.min(cap, tokens + math.max(0, nowMs - at) * ratePerMs)
end

local function store(key, tokens, cap, ratePerMs)
  redis.call('HSET', key, 'tokens', tokens, 'atMs', nowMs)
  -- Once full again the bucket equals a missing key: let it go. PEXPIRE wants an integer:
  -- a bucket that never refills (rate 0) keeps its key for a day rather than for "inf".
  local refillMs = ratePerMs > 0 and math.ceil((cap - tokens) / ratePerMs) or 86400000
  redis.call('PEXPIRE', key, math.min(refillMs, 86400000) + 1000)
end

local customerTokens = level(KEYS[2], customerCap, customerRatePerMs)
local showTokens = level(KEYS[3], showCap, showRatePerMs)
if customerTokens >= cost and showTokens >= cost then
  store(KEYS[2], customerTokens - cost, customerCap, customerRatePerMs)
  store(KEYS[3], showTokens - cost, showCap, showRatePerMs)
  return {1, 0, math.floor(customerTokens - cost), math.floor(showTokens - cost), admission}
end
local wait = 0
if customerTokens < cost then wait = math.max(wait, math.ceil((cost - customerTokens) / customerRatePerMs)) end
if showTokens < cost then wait = math.max(wait, math.ceil((cost - showTokens) / showRatePerMs)) end
return {0, wait, math.floor(customerTokens), math.floor(showTokens), admission}
