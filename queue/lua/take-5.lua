--[[
  Dual token bucket for purchase routes: takes `cost` from the customer's bucket AND the
  showtime's bucket, or from neither. Buckets start full and refill continuously.
  With requireAdmission, the customer must also hold a live admission session (routes that
  start a purchase: a token outliving a released slot must not let its holder in again).
  KEYS: 1 room cfg (per-showtime overrides), 2 customer bucket, 3 showtime bucket,
        4 room active sessions (zset customer -> session expiry ms)
  ARGV: 1 cost, 2 default customer capacity, 3 default customer refill per minute,
        4 default showtime capacity, 5 default showtime refill per second,
        6 customer id, 7 requireAdmission (1|0)
  Returns: {allowed (1|0), retryAfterMs, customerTokensLeft, showtimeTokensLeft}
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
if ARGV[7] == '1' then
  local sessionEndsAt = tonumber(redis.call('ZSCORE', KEYS[4], ARGV[6]))
  if not sessionEndsAt or sessionEndsAt <= nowMs then return {-11} end
end

local function level(key, cap, ratePerMs)
  local b = redis.call('HMGET', key, 'tokens', 'atMs')
  local tokens = tonumber(b[1]) or cap
  local at = tonumber(b[2]) or nowMs
  return math.min(cap, tokens + math.max(0, nowMs - at) * ratePerMs)
end

local function store(key, tokens, cap, ratePerMs)
  redis.call('HSET', key, 'tokens', tokens, 'atMs', nowMs)
  -- Once full again the bucket equals a missing key: let it go.
  redis.call('PEXPIRE', key, math.ceil((cap - tokens) / ratePerMs) + 1000)
end

local customerTokens = level(KEYS[2], customerCap, customerRatePerMs)
local showTokens = level(KEYS[3], showCap, showRatePerMs)
if customerTokens >= cost and showTokens >= cost then
  store(KEYS[2], customerTokens - cost, customerCap, customerRatePerMs)
  store(KEYS[3], showTokens - cost, showCap, showRatePerMs)
  return {1, 0, math.floor(customerTokens - cost), math.floor(showTokens - cost)}
end
local wait = 0
if customerTokens < cost then wait = math.max(wait, math.ceil((cost - customerTokens) / customerRatePerMs)) end
if showTokens < cost then wait = math.max(wait, math.ceil((cost - showTokens) / showRatePerMs)) end
return {0, wait, math.floor(customerTokens), math.floor(showTokens)}
