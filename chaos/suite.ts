/**
 * The fault suite: one stack (chaos/stack.ts), then for each fault a fresh sale, a crowd of
 * buyers through the shared journey (loadtest/lib/journey.js), the fault injected while they
 * buy, the time until buyers are served again, and the invariants once things settle.
 */
import { Redis } from 'ioredis';
import type { Sql } from 'postgres';
import { connectDatabase } from '../core/src/db/connect';
import { runBuyers } from '../loadtest/journey/driver';
import { Recorder } from '../loadtest/journey/recorder';
import { createSale } from '../loadtest/journey/setup';
import type { JourneySettings } from '../loadtest/lib/journey.js';
import { createKeyBuilder } from '../queue/src/keys';
import { FAULTS, FRESH_COPY_MS, type Fault } from './faults';
import { durableRoomSettings, eventsNotAppliedByEdge, readFaultInvariants, settingsDifferences, showtimeSoldOut, type FaultInvariants, type RoomSettings } from './invariants';
import { startChaosStack, type ChaosStack } from './stack';

export interface ChaosSettings {
  buyers: number;
  rows: number;
  columns: number;
  capacity: number;
  admitPerMinute: number;
  sessionTtlSeconds: number;
  holdTtlMs: number;
  rampSeconds: number;
  durationSeconds: number;
  /** When the fault starts, after the first buyers arrived. */
  injectAtMs: number;
  outageMs: number;
  /** Longest wait for the buyers' path after the component is back (the goal is 5 s). */
  recoveryGoalMs: number;
  /** Faults to run, by name (all by default). */
  only?: string[];
  log?: (line: string) => void;
}

export const SHORT_SETTINGS: ChaosSettings = {
  buyers: 24, rows: 3, columns: 10, capacity: 12, admitPerMinute: 6_000, sessionTtlSeconds: 30, holdTtlMs: 15_000,
  rampSeconds: 1, durationSeconds: 5, injectAtMs: 1_200, outageMs: 1_500, recoveryGoalMs: 5_000,
};

export const FULL_SETTINGS: ChaosSettings = {
  buyers: 450, rows: 10, columns: 30, capacity: 60, admitPerMinute: 3_000, sessionTtlSeconds: 60, holdTtlMs: 20_000,
  rampSeconds: 10, durationSeconds: 45, injectAtMs: 10_000, outageMs: 10_000, recoveryGoalMs: 5_000,
};

export interface FaultResult {
  fault: string;
  showtimeId: string;
  /** `endpoint status [code]` → count, what buyers saw. */
  answers: Map<string, number>;
  status500: number;
  noAnswer: number;
  recoveryMs: number | null;
  invariants: FaultInvariants;
  details: string[];
  booked: number;
  breaches: string[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The room's settings from the operator API; a few tries, since a saturated edge may answer late. */
async function roomSettings(stack: ChaosStack, showtimeId: string): Promise<RoomSettings | null> {
  for (let attempt = 0; attempt < 4; attempt++) {
    try {
      const response = await fetch(`${stack.edgeUrl}/api/admin/showtimes/${showtimeId}/room`, {
        headers: { authorization: `Bearer ${stack.adminToken}` }, signal: AbortSignal.timeout(5_000),
      });
      if (response.status === 200) return ((await response.json()) as { settings?: RoomSettings }).settings ?? null;
    } catch {
      // timed out or refused: try again
    }
    await sleep(500);
  }
  return null;
}

/**
 * The most buyers admitted at once, read from the room's own `active` set every 25 ms (live
 * sessions: score = expiry). Offers are not admissions: the claim enforces the cap, and offers
 * may run a little past the free slots where the no-show rate allows. Unreadable while Redis is
 * down, which is when nobody can be admitted either.
 */
function capSampler(redis: Redis, showtimeId: string) {
  const activeKey = createKeyBuilder('').forShowtime(showtimeId).active;
  let running = true;
  let highest = 0;
  const loop = (async () => {
    while (running) {
      const live = await redis.zcount(activeKey, Date.now(), '+inf').catch(() => 0);
      highest = Math.max(highest, live);
      await sleep(25);
    }
  })();
  return { stop: async () => ((running = false), await loop, highest) };
}

/**
 * Waits (bounded) until the jobs have caught up: outbox published, lapsed holds swept, payments
 * settled, and every published event of the showtime applied by the edge.
 */
async function settle(sql: Sql, redis: Redis, showtimeId: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const [row] = await sql<{ busy: number }[]>`
      SELECT ((SELECT count(*) FROM outbox WHERE published_at IS NULL)
            + (SELECT count(*) FROM seat_hold WHERE showtime_id = ${showtimeId} AND status = 'ACTIVE' AND expires_at < now())
            + (SELECT count(*) FROM payment WHERE showtime_id = ${showtimeId} AND status IN ('PENDING', 'REFUND_REQUESTED') AND expires_at < now()))::int AS busy`
      .catch(() => [{ busy: 1 }]);
    if (row!.busy === 0 && (await eventsNotAppliedByEdge(sql, redis, showtimeId).catch(() => ['unreadable'])).length === 0) return;
    await sleep(250);
  }
}

async function runFault(stack: ChaosStack, sql: Sql, redis: Redis, fault: Fault, settings: ChaosSettings): Promise<FaultResult> {
  const { showtimeId } = await createSale({
    coreUrl: stack.coreUrl, edgeUrl: stack.edgeUrl, adminToken: stack.adminToken, serviceToken: stack.serviceToken, rows: settings.rows, columns: settings.columns,
    holdTtlMs: settings.holdTtlMs, capacity: settings.capacity, admitPerMinute: settings.admitPerMinute, sessionTtlSeconds: settings.sessionTtlSeconds,
  });
  const settingsBefore = await roomSettings(stack, showtimeId);
  const durableBefore = await durableRoomSettings(sql, Number(showtimeId));
  const recorder = new Recorder();
  const answers = new Map<string, number>();
  const acknowledged = { holdIds: new Set<string>(), paymentIds: new Set<string>() };
  const cap = capSampler(redis, showtimeId);
  const journey: JourneySettings = {
    showtimeId, party: 2, maxHoldTries: 3, seatPreference: 'random', paymentApiKey: stack.paymentApiKey,
    maxWaitMs: settings.durationSeconds * 1000, random: Math.random,
  };
  const buying = runBuyers({
    edgeUrl: stack.edgeUrl, paymentsUrl: stack.paymentsUrl, buyers: settings.buyers, rampSeconds: settings.rampSeconds,
    durationSeconds: settings.durationSeconds, journey, recorder, requestTimeoutMs: 8_000,
    onAnswer: (endpoint, response) => {
      const code = (response.json as { error?: { code?: string } } | null)?.error?.code;
      const key = `${endpoint} ${response.status === 0 ? 'no answer' : response.status}${code ? ` ${code}` : ''}`;
      answers.set(key, (answers.get(key) ?? 0) + 1);
      // What a buyer was told exists must still exist after any fault.
      const body = response.json as { holdId?: string; paymentId?: string } | null;
      if (response.status === 201 && endpoint === 'hold' && body?.holdId) acknowledged.holdIds.add(body.holdId);
      if (response.status === 201 && endpoint === 'checkout' && body?.paymentId) acknowledged.paymentIds.add(body.paymentId);
    },
  });

  await sleep(settings.injectAtMs);
  const faultBeganAt = Date.now();
  await fault.inject(stack, { outageMs: settings.outageMs });
  const backAt = Date.now();
  // An answer the edge may have cached before the fault proves nothing about recovery.
  await sleep(Math.max(0, faultBeganAt + FRESH_COPY_MS - backAt));
  let recoveryMs: number | null = null;
  if (fault.recovered) {
    while (Date.now() - backAt < 30_000) {
      // Recovered as of when the successful probe was sent: on a saturated machine its own
      // answer may take a while, and that is load, not the fault.
      const probeSentAt = Date.now();
      if (await fault.recovered(stack, showtimeId)) {
        recoveryMs = probeSentAt - backAt;
        break;
      }
      await sleep(100);
    }
  }
  await buying;
  const maxActive = await cap.stop();
  await settle(sql, redis, Number(showtimeId), 20_000);
  const notAppliedByEdge = await eventsNotAppliedByEdge(sql, redis, Number(showtimeId)).catch(() => ['(Redis unreadable)']);

  const settingsAfter = await roomSettings(stack, showtimeId);
  const durableAfter = await durableRoomSettings(sql, Number(showtimeId));
  const soldOut = await showtimeSoldOut(sql, Number(showtimeId));
  const changed = settingsDifferences(settingsBefore, settingsAfter, { soldOut });
  if (durableBefore && JSON.stringify(durableBefore) !== JSON.stringify(durableAfter)) changed.push('durable room_settings row changed');
  const { figures, details } = await readFaultInvariants(sql, Number(showtimeId), {
    redis, maxActiveSeen: maxActive, capacity: settings.capacity, settingsChanged: changed, staleAfterSeconds: 3, notAppliedByEdge,
    acknowledged: { holdIds: [...acknowledged.holdIds], paymentIds: [...acknowledged.paymentIds] },
  });
  const status500 = [...answers].filter(([key]) => / 500\b/.test(key)).reduce((n, [, count]) => n + count, 0);
  const noAnswer = [...answers].filter(([key]) => key.includes('no answer')).reduce((n, [, count]) => n + count, 0);
  const breaches: string[] = [];
  // A service that died on its own (not the one this fault killed and restarted) is a finding;
  // start it again so the next fault runs on a whole stack.
  for (const service of [stack.core, stack.edge, stack.sandbox, stack.ticker]) {
    if (service.running()) continue;
    breaches.push(`${service.name} process died`);
    await service.start().catch((error: unknown) => breaches.push(`${service.name} did not start again: ${(error as Error).message}`));
  }
  for (const [name, value] of Object.entries(figures)) if (value > 0) breaches.push(`${name} ${value}`);
  if (status500 > 0) breaches.push(`${status500} answers 500`);
  if (fault.recovered && (recoveryMs === null || recoveryMs > settings.recoveryGoalMs)) {
    breaches.push(recoveryMs === null ? 'never recovered (30 s)' : `recovery ${recoveryMs} ms > ${settings.recoveryGoalMs} ms`);
  }
  return {
    fault: fault.name, showtimeId, answers, status500, noAnswer, recoveryMs, invariants: figures, details,
    booked: recorder.counters.get('booked') ?? 0, breaches,
  };
}

export async function runChaosSuite(settings: ChaosSettings): Promise<{ results: FaultResult[]; stack: { logDir: string } }> {
  const log = settings.log ?? (() => {});
  const startedAt = Date.now();
  const stack = await startChaosStack();
  log(`chaos: stack up in ${((Date.now() - startedAt) / 1000).toFixed(1)} s (private PostgreSQL :${stack.postgres.port}, redis-server :${stack.redis.port}; logs ${stack.logDir})`);
  const sql = connectDatabase(stack.databaseUrl, { max: 2, applicationName: 'chaos-observer' });
  const redis = new Redis(stack.redis.url, { maxRetriesPerRequest: 1 });
  redis.on('error', () => {}); // Redis is killed on purpose
  const results: FaultResult[] = [];
  try {
    for (const fault of FAULTS.filter((f) => !settings.only || settings.only.includes(f.name))) {
      const began = Date.now();
      const result = await runFault(stack, sql, redis, fault, settings);
      results.push(result);
      log(`chaos: ${fault.name}: ${result.breaches.length === 0 ? 'ok' : `BREACH (${result.breaches.join('; ')})`} in ${((Date.now() - began) / 1000).toFixed(1)} s`);
    }
  } finally {
    redis.disconnect();
    await sql.end({ timeout: 2 });
    await stack.close();
  }
  return { results, stack: { logDir: stack.logDir } };
}
