/**
 * The fault suite: one stack (chaos/stack.ts), a control run with no fault, then for each
 * fault a fresh sale, a crowd of buyers through the shared journey (loadtest/lib/journey.js),
 * the fault injected while they buy, the time until buyers are served again (beside a control
 * probe that shows the machine's own lag), a minimum of work done, and the checks
 * (chaos/checks/) once things settle. A run fails on any non-zero check figure, any check that
 * could not run, any 500, too little work, or a recovery past the goal.
 */
import { Redis } from 'ioredis';
import type { Sql } from 'postgres';
import { connectDatabase } from '../core/src/db/connect';
import { capSamplers } from './cap-sampler';
import { failuresOf, runChecks, type CheckOutcome } from './checks/check';
import type { CapSamples } from './checks/room';
import { eventsNotAppliedByEdge } from './checks/events';
import { startControlProbe, type ControlProbe } from './control-probe';
import { FAULTS, type Fault } from './faults';
import { bookedFrom, runBuyersThroughFault, type FaultRunSettings } from './fault-run';
import { FAULT_CHECKS, type FaultCheckContext } from './fault-checks';
import { judgeRun, minimumBookings, minimumBookingsAfterBack } from './judge';
import { startChaosStack, type ChaosStack } from './stack';

export interface ChaosSettings extends FaultRunSettings {
  /** A fault run must book at least this share of the control run's bookings. */
  minBookingShare: number;
  /**
   * Every service's REDIS_KEY_PREFIX (a deployment sharing its Redis); the samplers and checks
   * read under it. Needs a core and ticker that honour the prefix.
   */
  keyPrefix?: string;
  /** Faults to run, by name (all by default; the control run always runs). */
  only?: string[];
  log?: (line: string) => void;
}

export const SHORT_SETTINGS: ChaosSettings = {
  buyers: 24,
  rows: 3,
  columns: 10,
  capacity: 12,
  admitPerMinute: 6_000,
  sessionTtlSeconds: 30,
  holdTtlMs: 15_000,
  rampSeconds: 2,
  durationSeconds: 14,
  injectAtMs: 1_200,
  outageMs: 1_500,
  stallMs: 3_000,
  recoveryGoalMs: 5_000,
  minBookingShare: 0.5,
};

/**
 * Buyers keep arriving for 30 s into a hall none of them can sell out (900 seats, 450 buyers of
 * two), so every fault at 10 s strikes mid-sale and buyers are still arriving after it: with a
 * 10 s ramp and 300 seats the sale was over before the faults began, and a run "did its work"
 * with bookings all made before its fault.
 */
export const FULL_SETTINGS: ChaosSettings = {
  buyers: 450,
  rows: 20,
  columns: 45,
  capacity: 60,
  admitPerMinute: 3_000,
  sessionTtlSeconds: 60,
  holdTtlMs: 20_000,
  rampSeconds: 30,
  durationSeconds: 75,
  injectAtMs: 10_000,
  outageMs: 10_000,
  stallMs: 10_000,
  recoveryGoalMs: 5_000,
  minBookingShare: 0.5,
};

/** The work a run did: what a fault must not reduce to nothing. */
export interface WorkDone {
  bookings: number;
  /** Bookings from the second after the component was back: work the fault did not precede. */
  bookingsAfterBack: number;
  /** Seat maps buyers were served (the furthest a buyer gets without the core's writes). */
  seatMaps: number;
  /** Payments no longer pending in the core: paid and booked, failed, or refunded. */
  paymentsSettled: number;
}

export interface FaultResult {
  fault: string;
  showtimeId: string;
  /** `endpoint status [code]` → count, what buyers saw. */
  answers: Record<string, number>;
  status5xx: number;
  status500: number;
  noAnswer: number;
  work: WorkDone;
  /** The minimum bookings this run had to reach (null for the control run itself). */
  minBookings: number | null;
  /** The minimum after the component was back (null: not judged). */
  minBookingsAfterBack: number | null;
  /** Bookings per second of the run (the control's set the bar for the others). */
  bookedPerSecond: number[];
  /** From the component back to the buyers' path served, and the control probe's worst round trip meanwhile. */
  recovery: { ms: number | null; machineLagMs: number } | null;
  /** The most admitted at once, as each cap sampler saw it. */
  cap: { redis: CapSamples; ledger: CapSamples };
  /** What the fault measured besides (e.g. `retainedCatchUpMs`): reported under the table, not judged. */
  figures: Record<string, number | null>;
  checks: CheckOutcome;
  failures: string[];
}

export const CONTROL_RUN: Fault = {
  name: 'no fault (control)',
  inject: async (_stack, timing) => void (await new Promise((resolve) => setTimeout(resolve, timing.outageMs))),
  recovered: null,
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What every fault run must reach, taken from the control run. */
interface Minimums {
  minBookings: number | null;
  /** The control run's bookings per second (null while the control itself runs). */
  controlBookedPerSecond: number[] | null;
}

/**
 * Waits (bounded) until the jobs have caught up: outbox published, lapsed holds swept, payments
 * settled, and every published event of the showtime applied by the edge.
 */
async function settle(sql: Sql, redis: Redis, showtimeId: number, keyPrefix: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const [row] = await sql<{ busy: number }[]>`
      SELECT ((SELECT count(*) FROM outbox WHERE published_at IS NULL)
            + (SELECT count(*) FROM seat_hold WHERE showtime_id = ${showtimeId} AND status = 'ACTIVE' AND expires_at < now())
            + (SELECT count(*) FROM payment WHERE showtime_id = ${showtimeId} AND status IN ('PENDING', 'REFUND_REQUESTED') AND expires_at < now()))::int AS busy`.catch(
      () => [{ busy: 1 }],
    );
    if (
      row!.busy === 0 &&
      (await eventsNotAppliedByEdge(sql, redis, showtimeId, keyPrefix).catch(() => ['unreadable'])).length === 0
    )
      return;
    await sleep(250);
  }
}

/**
 * The checks, again until they pass or `timeoutMs` ends: money settles through the gateway
 * (a refund the relay has asked for completes a moment later), so a figure may still fall.
 * What is reported is the last reading.
 */
async function checkUntilClean(context: FaultCheckContext, timeoutMs: number): Promise<CheckOutcome> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const outcome = await runChecks(FAULT_CHECKS, context);
    if (failuresOf(outcome).length === 0 || Date.now() >= deadline) return outcome;
    await sleep(500);
  }
}

async function workDone(
  sql: Sql,
  showtimeId: number,
  bookings: number,
  bookingsAfterBack: number,
  seatMaps: number,
): Promise<WorkDone> {
  const [row] = await sql<{ settled: number }[]>`
    SELECT count(*)::int AS settled FROM payment WHERE showtime_id = ${showtimeId} AND status <> 'PENDING'`;
  // An empty reading (seen once in a full run, after the retained-outbox fault) counts as none
  // settled: the run then fails its minimum, instead of the whole suite stopping on a TypeError.
  return { bookings, bookingsAfterBack, seatMaps, paymentsSettled: row?.settled ?? 0 };
}

async function runOne(
  stack: ChaosStack,
  sql: Sql,
  redis: Redis,
  control: ControlProbe,
  fault: Fault,
  settings: ChaosSettings,
  minimums: Minimums,
): Promise<FaultResult> {
  const { minBookings } = minimums;
  const run = await runBuyersThroughFault({
    stack,
    sql,
    redis,
    control,
    fault,
    settings,
    samplers: (showtimeId) => capSamplers({ redis, sql, showtimeId, keyPrefix: stack.keyPrefix }),
  });
  const showtimeId = Number(run.showtimeId);
  await settle(sql, redis, showtimeId, stack.keyPrefix, 20_000);
  const checks = await checkUntilClean(
    {
      sql,
      redis,
      keyPrefix: stack.keyPrefix,
      showtimeId,
      capacity: settings.capacity,
      staleAfterSeconds: 3,
      gateway: { url: stack.paymentsUrl, apiKey: stack.paymentApiKey },
      acknowledged: run.acknowledged,
      cap: run.cap,
      settings: await run.settingsAfter(),
      paused: run.paused,
    },
    15_000,
  );
  const work = await workDone(
    sql,
    showtimeId,
    run.bookings,
    bookedFrom(run.bookedPerSecond, run.backSecond),
    run.answers['seats 200'] ?? 0,
  );
  // The control's bookings over the same seconds of its own run: a component slow to come back
  // leaves a shorter window, and is compared with the control over that window only.
  const minBookingsAfterBack = minimums.controlBookedPerSecond
    ? minimumBookingsAfterBack(bookedFrom(minimums.controlBookedPerSecond, run.backSecond), settings.minBookingShare)
    : null;
  const count = (match: (key: string) => boolean) =>
    Object.entries(run.answers)
      .filter(([key]) => match(key))
      .reduce((n, [, c]) => n + c, 0);
  const status5xx = count((key) => / 5\d\d\b/.test(key));
  const status500 = count((key) => / 500\b/.test(key));
  const failures: string[] = [
    ...failuresOf(checks),
    ...judgeRun({
      status500,
      notFired: run.notFired,
      ...work,
      minBookings,
      minBookingsAfterBack,
      recovery: run.recovery,
      recoveryGoalMs: settings.recoveryGoalMs,
    }),
  ];
  // A service that died on its own (not the one this fault killed and restarted) is a finding;
  // start it again so the next fault runs on a whole stack.
  for (const service of [stack.core, stack.edge, stack.sandbox, stack.ticker]) {
    if (service.running()) continue;
    failures.push(`${service.name} process died`);
    await service
      .start()
      .catch((error: unknown) => failures.push(`${service.name} did not start again: ${(error as Error).message}`));
  }
  return {
    fault: fault.name,
    showtimeId: run.showtimeId,
    answers: run.answers,
    status5xx,
    status500,
    noAnswer: count((key) => key.includes('no answer')),
    work,
    minBookings,
    minBookingsAfterBack,
    bookedPerSecond: run.bookedPerSecond,
    recovery: run.recovery,
    cap: run.cap,
    figures: run.figures,
    checks,
    failures,
  };
}

export async function runChaosSuite(
  settings: ChaosSettings,
): Promise<{ results: FaultResult[]; stack: { logDir: string } }> {
  const log = settings.log ?? (() => {});
  const startedAt = Date.now();
  const stack = await startChaosStack({ ...(settings.keyPrefix ? { keyPrefix: settings.keyPrefix } : {}) });
  log(
    `chaos: stack up in ${((Date.now() - startedAt) / 1000).toFixed(1)} s (private PostgreSQL :${stack.postgres.port}, redis-server :${stack.redis.port}; logs ${stack.logDir})`,
  );
  const sql = connectDatabase(stack.databaseUrl, { max: 3, applicationName: 'chaos-observer', sequentialScans: true });
  const redis = new Redis(stack.redis.url, { maxRetriesPerRequest: 1 });
  redis.on('error', () => {}); // Redis is killed on purpose
  const control = await startControlProbe();
  const results: FaultResult[] = [];
  try {
    const chosen = (f: Fault) => (settings.only ? settings.only.includes(f.name) : !f.optIn);
    const faults = [CONTROL_RUN, ...FAULTS.filter(chosen)];
    let minimums: Minimums = { minBookings: null, controlBookedPerSecond: null };
    for (const fault of faults) {
      const began = Date.now();
      const result = await runOne(stack, sql, redis, control, fault, settings, minimums);
      results.push(result);
      if (fault === CONTROL_RUN) {
        minimums = {
          minBookings: minimumBookings(result.work.bookings, settings.minBookingShare),
          controlBookedPerSecond: result.bookedPerSecond,
        };
      }
      log(
        `chaos: ${fault.name}: ${result.failures.length === 0 ? 'ok' : `FAIL (${result.failures.join('; ')})`} in ${((Date.now() - began) / 1000).toFixed(1)} s`,
      );
    }
  } finally {
    await control.close();
    redis.disconnect();
    await sql.end({ timeout: 2 });
    await stack.close();
  }
  return { results, stack: { logDir: stack.logDir } };
}
