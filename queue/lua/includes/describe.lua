-- Where one customer stands, as the flat reply shared by join and poll:
--   {1, state, ticket, position, expiresAtMs, lineLength, preLength, admitsInWindow,
--    rateWindowMs, nowMs, roomState, opensAtMs, admitPerMinute, abandonGraceMs, capacity,
--    busyMs, busyAdmitsMilli, turnsEnded, turnMs, headStart, windowWaitMs, claimGapMs,
--    runningTurns, runningTurnMs, ratePerMinuteMilli, bucketTokensMilli, freeSlots}
-- busyMs..turnMs: what the estimate learned (see learnBusy/learnTurns); headStart: how many
-- the next admission step would offer at once (free slots, banked budget, window left);
-- windowWaitMs: how long until the one-minute window lets `position` more in (after a rate
-- cut the window may hold more than the new rate), -1 when that lies beyond the window's log.
-- claimGapMs: mean time from offer to claim (learnClaim); runningTurns, runningTurnMs: the
-- running turns counted as lower bounds of the turn (learnRunning) and their age now.
-- ratePerMinuteMilli: the rate in force in thousandths (the loop's may be fractional, and a
-- reply carries integers only); bucketTokensMilli, freeSlots: what the bucket holds now
-- (refilled to this instant, capped at the burst) and the slots free, so that the wait is
-- worked out as the step will admit (estimate.ts etaForPositionMs).
local function bucketNow(s)
  local b = redis.call('HMGET', statsKey, 'bucketTokens', 'bucketAtMs')
  return math.min(s.admitBurst, (tonumber(b[1]) or s.admitBurst) +
    math.max(0, nowMs - (tonumber(b[2]) or nowMs)) * s.admitPerMinute / RATE_WINDOW_MS)
end

local function freeSlots(s)
  return s.capacity - redis.call('ZCARD', activeKey) - redis.call('ZCARD', offersKey)
end

local function headStart(s, admits)
  if s.state ~= 'open' then return 0 end
  return math.max(0, math.min(freeSlots(s), math.floor(bucketNow(s)), windowCap(s) - admits))
end

-- Place k in line goes in once the window's entry number (admits - rate + k) has aged out;
-- the places after it then follow at the bucket's pace (a burst at once, then the rate), so
-- the wait is the longest of those chains. At most WINDOW_LOOKUP entries are read.
local WINDOW_LOOKUP = 200
local function windowWait(s, admits, position)
  local cap = windowCap(s)
  if cap <= 0 then return -1 end
  local first = admits - cap + 1
  local last = first + position - 1
  if position <= 0 or last <= 0 then return 0 end
  if last > admits then return -1 end
  local from = math.max(1, first, last - WINDOW_LOOKUP + 1)
  local aged = redis.call('ZCARD', admitsKey) - admits
  local entries = redis.call('ZRANGE', admitsKey, aged + from - 1, aged + last - 1, 'WITHSCORES')
  local perMs = s.admitPerMinute / RATE_WINDOW_MS
  local wait = 0
  for i = 2, #entries, 2 do
    local place = from + i / 2 - first
    local freeAt = math.max(0, tonumber(entries[i]) + RATE_WINDOW_MS - nowMs)
    wait = math.max(wait, freeAt + math.max(0, position - place - s.admitBurst) / perMs)
  end
  return math.floor(wait)
end

-- Where the customer's own place is: state, ticket (0 if none), position (0 unless waiting),
-- expiresAt (the offer's or the session's end, else 0). preLength: the pre-queue members not
-- placed yet, ahead of everyone in the line while the draw is pending.
-- state: admitted | offered | waiting | prequeue | paused | closed | sold_out | expired | none
local function placeOf(s, customer, preLength)
  local ticket = tonumber(redis.call('HGET', whoKey, customer))
  local state, position, expiresAt = 'none', 0, 0
  local score = redis.call('ZSCORE', activeKey, customer)
  if score then
    state, expiresAt = 'admitted', tonumber(score)
  else
    score = redis.call('ZSCORE', offersKey, customer)
    if score and tonumber(score) > nowMs then
      state, expiresAt = 'offered', tonumber(score)
    elseif score then
      state = 'expired'
    else
      local rank = redis.call('ZRANK', lineKey, customer)
      if rank then
        state, position = 'waiting', rank + 1
        if s.state == 'opening' then position = position + preLength end
      elseif inPrequeue(customer) then
        state = 'prequeue'
      elseif ticket then
        state = 'expired'
      end
    end
  end
  -- Waiters learn the room's state; an open offer survives a pause (pausing stops new
  -- offers only) but not a close or a sell-out. A turn or offer a close has ended reads as
  -- the close itself, not as a lapse of the buyer's own.
  local roomStops = s.state == 'closed' or s.state == 'sold_out'
  if ((state == 'waiting' or state == 'prequeue') and (roomStops or s.state == 'paused')) or
     ((state == 'offered' or state == 'expired') and roomStops) then
    state = s.state
  end
  return state, ticket or 0, position, expiresAt
end

local function describe(s, customer)
  local lineLength = redis.call('ZCARD', lineKey)
  local preLength = undrawnCount(s)
  local admits = redis.call('ZCOUNT', admitsKey, nowMs - RATE_WINDOW_MS, '+inf')
  local openedAt = tonumber(redis.call('HGET', statsKey, 'openedAtMs')) or nowMs
  local windowMs = math.min(RATE_WINDOW_MS, nowMs - openedAt)
  local state, ticket, position, expiresAt = placeOf(s, customer, preLength)
  local l = redis.call('HMGET', statsKey, 'lrnBusyMs', 'lrnBusyAdm', 'lrnTurns', 'lrnTurnMs',
    'lrnClaims', 'lrnClaimMs', 'lrnRunN', 'lrnRunMs', 'lrnRunAtMs')
  local turns = tonumber(l[3]) or 0
  local turnMs = turns > 0 and math.floor((tonumber(l[4]) or 0) / turns) or 0
  local claims = tonumber(l[5]) or 0
  local claimGapMs = claims > 0 and math.floor((tonumber(l[6]) or 0) / claims) or 0
  local running = tonumber(l[7]) or 0
  local runningMs = running > 0 and math.floor((tonumber(l[8]) or 0) + running * math.max(0, nowMs - (tonumber(l[9]) or nowMs))) or 0
  return {1, state, ticket, position, expiresAt, lineLength, preLength, admits, windowMs,
    nowMs, s.state, s.opensAtMs or 0, s.admitPerMinute, s.abandonGraceMs, s.capacity,
    math.floor(tonumber(l[1]) or 0), math.floor((tonumber(l[2]) or 0) * 1000), math.floor(turns), turnMs,
    headStart(s, admits), windowWait(s, admits, position), claimGapMs, running, runningMs,
    math.floor(s.admitPerMinute * 1000), math.floor(bucketNow(s) * 1000), math.max(0, freeSlots(s))}
end
