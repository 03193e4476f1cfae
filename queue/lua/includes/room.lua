-- Shared head of every room script: key names, the Redis clock, settings, opening and the
-- admission step (expire, then offer to the head of the line).
-- KEYS (in queue/src/keys.ts ROOM_KEY_NAMES order):
--   1 cfg  2 pre  3 line  4 offers  5 active  6 who  7 beat  8 admits  9 stats  10 journal
local cfgKey, preKey, lineKey, offersKey, activeKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local whoKey, beatKey, admitsKey, statsKey, journalKey = KEYS[6], KEYS[7], KEYS[8], KEYS[9], KEYS[10]

-- Time comes from the server so that every caller (edge, ticker, many processes) agrees.
local clock = redis.call('TIME')
local nowMs = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)

local RATE_WINDOW_MS = 60000
-- Bounds the work of one script call when many abandoned buyers sit at the head.
local MAX_SKIPS_PER_TICK = 500

-- A short first claim window: a buyer who is there claims on the next poll (every second or
-- two near the front), so one who vanished after looking present gives the slot back within
-- FIRST_CLAIM_MS rather than the room's whole window (offerWindowMs, which a claim refused
-- for a full room still extends to). Such a lapsed offer parks its buyer instead of ending
-- the place: seen again within the grace, the place comes back at the front (restoreIfParked).
local FIRST_CLAIM_MS = 10000
local function firstClaimMs(s) return math.min(s.offerWindowMs, FIRST_CLAIM_MS) end

-- The closed loop (queue/src/admission-governor.ts) writes an effective rate (ctlRate) and a
-- cap on turns from the seats left (ctlCap) into the room, valid until ctlUntilMs: every
-- admission step, whoever drives it, uses them in place of the operator's rate and capacity.
-- A governor that stops writing lets them lapse (back to the operator's rate); an operator who
-- switches the loop off (adaptiveAdmission 0) gets the rate as set at once.
local function governed(s, v)
  local untilMs = tonumber(v[4])
  if v[1] == '0' or not untilMs or untilMs <= nowMs then return end
  local rate, cap = tonumber(v[2]), tonumber(v[3])
  if rate and rate ~= s.admitPerMinute then
    s.admitBurst = rate <= 0 and 0 or math.max(1, math.floor(s.admitBurst * rate / s.admitPerMinute + 0.5))
    s.admitPerMinute = math.max(0, rate)
  end
  -- A cap below 0 means none known.
  if cap and cap >= 0 and cap < s.capacity then s.capacity = cap end
end

-- The one-minute window's cap as a count. The loop's rate may be fractional (0.5 a minute is
-- a meaningful rate when the core struggles: the bucket lets one in every two minutes), but a
-- count of admissions, and every ZRANGE index or LIMIT worked out from it, must be an integer
-- (Redis refuses "1.5"). A step offers one at a time while the window has room, so a rate of
-- R lets ceil(R) into any minute; 0 lets nobody in.
local function windowCap(s)
  if s.admitPerMinute <= 0 then return 0 end
  return math.ceil(s.admitPerMinute)
end

local function loadSettings()
  local v = redis.call('HMGET', cfgKey, 'state', 'capacity', 'admitPerMinute', 'admitBurst',
    'sessionTtlMs', 'offerWindowMs', 'abandonGraceMs', 'opensAtMs', 'tickGapMs',
    'adaptiveAdmission', 'ctlRate', 'ctlCap', 'ctlUntilMs', 'fairnessJournal')
  if not v[1] then return nil end
  local s = {
    state = v[1], capacity = tonumber(v[2]), admitPerMinute = tonumber(v[3]),
    admitBurst = tonumber(v[4]), sessionTtlMs = tonumber(v[5]), offerWindowMs = tonumber(v[6]),
    abandonGraceMs = tonumber(v[7]), opensAtMs = tonumber(v[8]), tickGapMs = tonumber(v[9]) or 0,
    journal = v[14] ~= '0',
  }
  governed(s, {v[10], v[11], v[12], v[13]})
  return s
end

-- A scheduled room whose opening time has passed freezes its pre-queue: the tickets right
-- after the current sequence are reserved for the draw, so whoever joins from now on queues
-- behind every pre-queue member, whatever order the draw decides.
local function freezeIfDue(s)
  -- No opening time yet means the operator will open the room by hand.
  if s.state ~= 'scheduled' or not s.opensAtMs or s.opensAtMs > nowMs then return end
  local n = redis.call('ZCARD', preKey)
  local base = redis.call('HINCRBY', statsKey, 'seq', n) - n
  redis.call('HSET', statsKey, 'drawBase', base, 'openedAtMs', nowMs)
  if n == 0 then
    -- Nobody to shuffle: open at once and reveal the seed (nothing depended on it).
    redis.call('HSET', cfgKey, 'state', 'open', 'seedRevealed', '1')
    s.state = 'open'
  else
    redis.call('HSET', cfgKey, 'state', 'opening')
    s.state = 'opening'
  end
end

-- What the wait estimate learns (queue/src/estimate.ts), kept in the stats hash as decayed
-- sums so that old behaviour fades: how long a slot stays taken per turn (from turns that
-- ended, the running ones already longer than those, and the wait from offer to claim), and
-- how far the line moved (offers, buyers passed over) over the time it was busy (waiters left
-- behind by the last step, room open), so the idle time before a crowd never dilutes the rate.
local TURN_DECAY_MS = 600000
local BUSY_DECAY_MS = 30000

local function learnTurns(count, totalMs)
  if count <= 0 then return end
  local v = redis.call('HMGET', statsKey, 'lrnTurnAtMs', 'lrnTurns', 'lrnTurnMs')
  local keep = math.exp(-math.max(0, nowMs - (tonumber(v[1]) or nowMs)) / TURN_DECAY_MS)
  redis.call('HSET', statsKey, 'lrnTurnAtMs', nowMs, 'lrnTurns', (tonumber(v[2]) or 0) * keep + count,
    'lrnTurnMs', (tonumber(v[3]) or 0) * keep + math.max(0, totalMs))
end

-- A slot given back before its expiry (release, leave): it was taken for the window it was
-- granted minus what was left of it.
local function learnEarlyEnd(s, customer)
  local session = tonumber(redis.call('ZSCORE', activeKey, customer))
  if session then return learnTurns(1, s.sessionTtlMs - (session - nowMs)) end
  local offer = tonumber(redis.call('ZSCORE', offersKey, customer))
  if offer then learnTurns(1, firstClaimMs(s) - (offer - nowMs)) end
end

-- The slot a turn takes begins with the offer, not the claim: the time between them (the
-- buyer's next poll) is learned at the claim, decayed like the turns.
local function learnClaim(s, offerExpiresAt)
  local gap = firstClaimMs(s) - (offerExpiresAt - nowMs)
  -- An offer a full room extended no longer says when it was made.
  if gap < 0 then return end
  local v = redis.call('HMGET', statsKey, 'lrnClaimAtMs', 'lrnClaims', 'lrnClaimMs')
  local keep = math.exp(-math.max(0, nowMs - (tonumber(v[1]) or nowMs)) / TURN_DECAY_MS)
  redis.call('HSET', statsKey, 'lrnClaimAtMs', nowMs, 'lrnClaims', (tonumber(v[2]) or 0) * keep + 1,
    'lrnClaimMs', (tonumber(v[3]) or 0) * keep + gap)
end

-- Turns still running are evidence too: early on, the turns that ended are the short ones.
-- A running turn older than the mean of the ended ones is counted at its age so far (a lower
-- bound of its length), oldest first, while it is older than the mean it raises; younger ones
-- say nothing against the mean. Before three turns have ended (an opening: the crowd's first
-- turns all running) every running turn counts, the oldest hundred: turns last at least as
-- long as those have run. Kept as a count and a total age as of lrnRunAtMs.
local MAX_RUNNING_READ = 100
local MIN_TURNS = 3
local function learnRunning(s)
  local v = redis.call('HMGET', statsKey, 'lrnTurns', 'lrnTurnMs')
  local n, total = tonumber(v[1]) or 0, tonumber(v[2]) or 0
  local count, ageMs = 0, 0
  if n < MIN_TURNS then
    local running = redis.call('ZRANGE', activeKey, 0, MAX_RUNNING_READ - 1, 'WITHSCORES')
    for i = 2, #running, 2 do
      count, ageMs = count + 1, ageMs + math.max(0, s.sessionTtlMs - (tonumber(running[i]) - nowMs))
    end
  elseif n > 0 then
    -- Sessions expire sessionTtlMs after their claim: the oldest expire first.
    local before = math.floor(nowMs - total / n + s.sessionTtlMs)
    local old = redis.call('ZRANGEBYSCORE', activeKey, '-inf', '(' .. before, 'WITHSCORES', 'LIMIT', 0, MAX_RUNNING_READ)
    for i = 2, #old, 2 do
      local age = s.sessionTtlMs - (tonumber(old[i]) - nowMs)
      if age * (n + count) <= total + ageMs then break end
      count, ageMs = count + 1, ageMs + age
    end
  end
  redis.call('HSET', statsKey, 'lrnRunN', count, 'lrnRunMs', ageMs, 'lrnRunAtMs', nowMs)
end

-- The line's pace is measured against the rate in force (the operator's, or the closed
-- loop's). When that rate changes, what was measured under the old one is scaled by how much
-- the prediction moves (a line held by the capacity barely notices a new rate); a cut also
-- holds the measurement for the one-minute window: until the admissions made at the old rate
-- age out of it, the window's log sets the pace (the estimate reads the log for that), not the
-- new rate. Nobody can be admitted at rate 0: that time is not busy either.
local function predictedPerMinute(rate, capacity)
  local v = redis.call('HMGET', statsKey, 'lrnTurns', 'lrnTurnMs')
  local n, total = tonumber(v[1]) or 0, tonumber(v[2]) or 0
  if n >= MIN_TURNS and total > 0 then return math.min(rate, capacity * RATE_WINDOW_MS * n / total) end
  return rate
end

local function learnBusy(s, offered)
  local v = redis.call('HMGET', statsKey, 'lrnAtMs', 'lrnBusy', 'lrnBusyMs', 'lrnBusyAdm', 'lrnRate', 'lrnHoldMs')
  local busyMs, busyAdmits = tonumber(v[3]) or 0, tonumber(v[4]) or 0
  if v[2] == '1' then
    local dt = math.max(0, nowMs - (tonumber(v[1]) or nowMs))
    local keep = math.exp(-dt / BUSY_DECAY_MS)
    busyMs, busyAdmits = busyMs * keep + dt, busyAdmits * keep + offered
  end
  local rate, was, holdUntil = s.admitPerMinute, tonumber(v[5]), tonumber(v[6]) or 0
  if was and rate ~= was then
    local before = predictedPerMinute(was, s.capacity)
    if before > 0 then busyAdmits = busyAdmits * predictedPerMinute(rate, s.capacity) / before
    else busyMs, busyAdmits = 0, 0 end
    if rate < was then holdUntil = nowMs + RATE_WINDOW_MS end
  end
  local busy = s.state == 'open' and rate > 0 and nowMs >= holdUntil and redis.call('ZCARD', lineKey) > 0
  redis.call('HSET', statsKey, 'lrnAtMs', nowMs, 'lrnBusy', busy and '1' or '0',
    'lrnBusyMs', busyMs, 'lrnBusyAdm', busyAdmits, 'lrnRate', rate, 'lrnHoldMs', holdUntil)
end

-- Expired offers and sessions give their slot back. Their customers keep their `who` entry,
-- so a later poll says "expired" rather than "unknown".
-- Walk-aways (a crashed phone, a lost network) must not slow the line. A page near the
-- front polls every second or two (queue/src/estimate.ts), so a buyer not seen for FRESH_MS
-- when the turn comes has most likely gone. Such a buyer is parked instead of offered: no
-- slot and no share of the rate wait on them. The `who` entry keeps the ticket, negated;
-- a parked buyer seen again within the abandonment grace of the parking goes back to the
-- front of the line (restoreIfParked), and gets the full claim window, being plainly there.
local FRESH_MS = 4000
-- Offers that were never claimed are counted (decayed) against all offers that ended, and
-- that no-show rate (at most MAX_NO_SHOW) lets the step offer beyond the free slots so that
-- the expected claims still fit; the claim itself never lets more than the capacity in.
local OUTCOME_DECAY_MS = 120000
local MAX_NO_SHOW = 0.5
local MIN_OUTCOMES = 10

local function learnOutcomes(claimed, noShows)
  local v = redis.call('HMGET', statsKey, 'lrnOutAtMs', 'lrnOutcomes', 'lrnNoShows')
  local keep = math.exp(-math.max(0, nowMs - (tonumber(v[1]) or nowMs)) / OUTCOME_DECAY_MS)
  redis.call('HSET', statsKey, 'lrnOutAtMs', nowMs, 'lrnOutcomes', (tonumber(v[2]) or 0) * keep + claimed + noShows,
    'lrnNoShows', (tonumber(v[3]) or 0) * keep + noShows)
end

local function noShowRate()
  local v = redis.call('HMGET', statsKey, 'lrnOutcomes', 'lrnNoShows')
  local outcomes = tonumber(v[1]) or 0
  if outcomes < MIN_OUTCOMES then return 0 end
  return math.min(MAX_NO_SHOW, (tonumber(v[2]) or 0) / outcomes)
end

-- The fairness journal (queue/src/fairness-journal.ts reads it): each call that changes who
-- stands where in the line appends its entries as ONE list element, and the core copies them into
-- the hash-chained admission log in PostgreSQL. An element is `<epoch>.<first seq>` then one line
-- per entry, `<kind>|<customer>|<rank>|<atMs>[|<sortIndex>|<size>]`, numbered from the first seq;
-- kinds: j joined, d drawn, a admitted (offered a turn in order), p passed over (parked as a
-- walk-away), r returned from a park, l left. One element and strings only (the time formatted
-- once) keep the admission step's cost to a string join and an RPUSH. The rank is the ticket:
-- issued at the join or by the draw (`j`, `d`), and the line's score when a place is offered or
-- passed over (no extra read), so a member moved in the line by hand shows as a rank it never
-- joined with, and the verifier counts it from the rank it joined with (lib/fairness-verify.ts).
-- The epoch changes when Redis lost the counter, so the copier never mistakes new entries for
-- copied ones. cfg fairnessJournal '0' switches the journal off (the benchmark's baseline).
local nowText = string.format('%d', nowMs)

local function journal(s, entries)
  if #entries == 0 or not s.journal then return end
  local last = redis.call('HINCRBY', statsKey, 'jSeq', #entries)
  local epoch
  if last == #entries then
    epoch = clock[1] .. clock[2]
    redis.call('HSET', statsKey, 'jEpoch', epoch)
  else
    epoch = redis.call('HGET', statsKey, 'jEpoch') or '0'
  end
  redis.call('RPUSH', journalKey, epoch .. '.' .. (last - #entries + 1) .. '\n' .. table.concat(entries, '\n'))
end

local function entry(kind, customer, rank)
  return kind .. '|' .. customer .. '|' .. rank .. '|' .. nowText
end

local function expire(s)
  local sessions = redis.call('ZREMRANGEBYSCORE', activeKey, '-inf', nowMs)
  -- An offer nobody claimed admitted nobody: its share of the rate is given back.
  local lapsed = redis.call('ZRANGEBYSCORE', offersKey, '-inf', nowMs)
  local offers = #lapsed
  if offers > 0 then
    redis.call('ZREMRANGEBYSCORE', offersKey, '-inf', nowMs)
    local park = s.offerWindowMs > FIRST_CLAIM_MS
    local entries = {}
    for _, customer in ipairs(lapsed) do
      local ticket = redis.call('HGET', whoKey, customer)
      if ticket then
        redis.call('ZREM', admitsKey, ticket)
        if park and tonumber(ticket) > 0 then
          redis.call('HSET', whoKey, customer, -tonumber(ticket))
          entries[#entries + 1] = entry('p', customer, ticket)
        end
      end
    end
    journal(s, entries)
    if park then redis.call('HINCRBY', statsKey, 'parked', offers) end
    if redis.call('HEXISTS', statsKey, 'bucketTokens') == 1 then
      redis.call('HINCRBYFLOAT', statsKey, 'bucketTokens', offers)
    end
    redis.call('HINCRBY', statsKey, 'offersExpired', offers)
    learnOutcomes(0, offers)
  end
  if sessions > 0 then redis.call('HINCRBY', statsKey, 'sessionsExpired', sessions) end
  learnTurns(sessions + offers, sessions * s.sessionTtlMs + offers * firstClaimMs(s))
end

-- Offers up to min(free slots, token bucket, what is left of the one-minute window) places.
-- The bucket smooths admissions; the window log makes "at most R per minute" hold for any
-- sliding minute even after the bucket has filled up while the room was full. Free slots
-- stretch by the observed no-show rate: offers x (1 - rate) + admitted stay within capacity.
local function offerToHead(s)
  if s.state ~= 'open' then return 0, 0, 0 end
  local shows = 1 - noShowRate()
  local free = math.floor((s.capacity - redis.call('ZCARD', activeKey)) / shows + 1e-9) - redis.call('ZCARD', offersKey)
  if free <= 0 then return 0, 0, 0 end
  local b = redis.call('HMGET', statsKey, 'bucketTokens', 'bucketAtMs')
  local tokens = tonumber(b[1]) or s.admitBurst
  local at = tonumber(b[2]) or nowMs
  tokens = math.min(s.admitBurst, tokens + math.max(0, nowMs - at) * s.admitPerMinute / RATE_WINDOW_MS)
  redis.call('ZREMRANGEBYSCORE', admitsKey, '-inf', nowMs - RATE_WINDOW_MS)
  local windowLeft = windowCap(s) - redis.call('ZCARD', admitsKey)
  local budget = math.min(free, math.floor(tokens), windowLeft)
  local offered, skipped, parked = 0, 0, 0
  local staleBefore = math.max(nowMs - FRESH_MS, nowMs - s.abandonGraceMs)
  local entries = {}
  while offered < budget and skipped + parked < MAX_SKIPS_PER_TICK do
    local head = redis.call('ZPOPMIN', lineKey)
    if #head == 0 then break end
    local customer, ticket = head[1], head[2]
    local beat = tonumber(redis.call('HGET', beatKey, customer))
    if beat and beat < staleBefore then
      -- Not seen lately: parked, the turn passes on. However long ago the last heartbeat was,
      -- the grace to come back counts from now: polls far back are answered by the edge's
      -- snapshot and leave no heartbeat here, so a line that moves faster than it was told
      -- outruns buyers who poll exactly as asked. Seen again within the grace, the place comes
      -- back at the front; never seen again, it costs the line nothing.
      parked = parked + 1
      redis.call('HSET', whoKey, customer, -tonumber(ticket))
      redis.call('HSET', beatKey, customer, nowMs)
      if s.journal then entries[#entries + 1] = entry('p', customer, ticket) end
    else
      redis.call('ZADD', offersKey, nowMs + firstClaimMs(s), customer)
      redis.call('ZADD', admitsKey, nowMs, ticket)
      offered = offered + 1
      if s.journal then entries[#entries + 1] = entry('a', customer, ticket) end
    end
  end
  journal(s, entries)
  redis.call('HSET', statsKey, 'bucketTokens', tokens - offered, 'bucketAtMs', nowMs)
  if offered > 0 then redis.call('HINCRBY', statsKey, 'offered', offered) end
  if skipped > 0 then redis.call('HINCRBY', statsKey, 'abandoned', skipped) end
  if parked > 0 then redis.call('HINCRBY', statsKey, 'parked', parked) end
  return offered, skipped, parked
end

-- A parked buyer seen again within the grace (counted from the parking) takes the place back,
-- at the front of the line (the ticket is older than anyone's there); seen after it, the turn
-- has lapsed.
local function restoreIfParked(s, customer)
  local ticket = tonumber(redis.call('HGET', whoKey, customer))
  if not ticket or ticket >= 0 then return end
  local beat = tonumber(redis.call('HGET', beatKey, customer))
  if beat and beat >= nowMs - s.abandonGraceMs then
    redis.call('ZADD', lineKey, -ticket, customer)
    redis.call('HSET', whoKey, customer, -ticket)
    redis.call('HINCRBY', statsKey, 'unparked', 1)
    journal(s, {entry('r', customer, -ticket)})
  else
    redis.call('HSET', whoKey, customer, -ticket)
    redis.call('HDEL', beatKey, customer)
    redis.call('HINCRBY', statsKey, 'abandoned', 1)
  end
end

-- One admission step. Idempotent in effect: the bucket and the window cap whatever many
-- concurrent callers (pollers, ticker processes) ask for.
local function advance(s)
  freezeIfDue(s)
  expire(s)
  local offered, skipped, parked = offerToHead(s)
  learnBusy(s, offered + skipped + parked)
  learnRunning(s)
  redis.call('HSET', statsKey, 'lastTickMs', nowMs)
  return offered, skipped
end

-- A pre-queue member is one whose `who` entry is 0. From the opening on, the pre-queue set
-- is frozen (the draw reads it in chunks), so leaving there only drops the `who` entry.
local function inPrequeue(customer)
  return redis.call('ZSCORE', preKey, customer) and redis.call('HGET', whoKey, customer) == '0'
end

-- Where a customer holds a place of any kind: a join then returns it instead of a new one.
local function holdsPlace(customer)
  return redis.call('ZSCORE', activeKey, customer) or redis.call('ZSCORE', offersKey, customer)
    or redis.call('ZSCORE', lineKey, customer) or inPrequeue(customer)
end

-- Pre-queue members the opening draw has not placed yet (all of them before the opening).
local function undrawnCount(s)
  local n = redis.call('ZCARD', preKey)
  if s.state == 'opening' then n = n - (tonumber(redis.call('HGET', statsKey, 'drawNext')) or 0) end
  return n
end

-- Joins and polls drive admission too, at most once per tickGapMs, so a room moves even
-- without the ticker process, and a crowd of pollers does not repeat the same work.
local function advanceIfDue(s)
  local lastTick = tonumber(redis.call('HGET', statsKey, 'lastTickMs')) or 0
  if nowMs - lastTick >= s.tickGapMs then advance(s) end
end
