/**
 * The faults, one at a time: each breaks one component, repairs it, and says when buyers are
 * served again. "Back" is the moment the component itself is up again (the process answers its
 * health check, the database accepts connections, Redis answers PING); recovery is measured
 * from there to the first request the buyers' path answers normally.
 */
import { Redis } from 'ioredis';
import postgres from 'postgres';
import { edgeKeys } from '../edge/src/state/edge-store';
import type { ChaosStack } from './stack';

export interface FaultTiming {
  /** How long a stopped component stays away. */
  outageMs: number;
  /** How long a table lock stalls the core. */
  stallMs: number;
}

export interface InjectOutcome {
  /** Why the fault could not happen (a crash point no request reached): such a run proves nothing. */
  notFired?: string;
  /** Figures the fault measures after the component is back, settled by the end of the run (reported, not judged). */
  figures?: Promise<Record<string, number | null>>;
}

export interface Fault {
  name: string;
  /**
   * Breaks and repairs; resolves at the moment the component is back, with `notFired` when the
   * fault could not happen (a crash point no request reached): such a run proves nothing.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: most faults resolve with nothing, as their async bodies return
  inject(stack: ChaosStack, timing: FaultTiming): Promise<void | InjectOutcome>;
  /** The room is paused (by its operator) for the fault and resumed once buyers are served again. */
  pausedRoom?: boolean;
  /** Runs only when named (`--only`): a fault that needs work not finished yet elsewhere. */
  optIn?: boolean;
  /** True once the buyers' path works again (null: nothing to recover, e.g. gateway faults). */
  recovered: ((stack: ChaosStack, showtimeId: string) => Promise<boolean>) | null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Copies of each of the earliest sale's events for the retained-outbox fault (tens of thousands of rows). */
const RETAINED_COPIES = 2_000;
/**
 * A retained day, whatever the size of the earliest sale copied into it: a full run's sale has
 * ~500 events, and 2,000 copies of it (a million rows) swamped the database for the faults after.
 */
const RETAINED_ROWS = 50_000;
/** Retained events sampled to tell when the replay reached the edge, and how long it may take. */
const CATCH_UP_SAMPLE = 200;
const CATCH_UP_LIMIT_MS = 120_000;

/**
 * From the moment Redis is back to the moment the edge has applied every sampled retained event
 * (its dedupe mark exists): how long the replay of a retained day takes behind the live sale.
 * null when it did not finish within the limit.
 */
async function retainedCatchUpMs(stack: ChaosStack, sample: string[], backAt: number): Promise<number | null> {
  const redis = new Redis(stack.redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  const keys = edgeKeys(stack.keyPrefix);
  try {
    await redis.connect();
    while (Date.now() - backAt < CATCH_UP_LIMIT_MS) {
      const pipeline = redis.pipeline();
      for (const eventId of sample) pipeline.exists(keys.seen(eventId));
      const replies = (await pipeline.exec().catch(() => null)) ?? [];
      if (replies.length === sample.length && replies.every(([error, seen]) => !error && seen === 1))
        return Date.now() - backAt;
      await sleep(250);
    }
    return null;
  } finally {
    redis.disconnect();
  }
}
/** A probe waits this long for each answer (the buyers' own requests wait 8 s). */
const PROBE_TIMEOUT_MS = 5_000;

async function setGatewayFaults(stack: ChaosStack, faults: Record<string, unknown> | null): Promise<void> {
  const response = await fetch(`${stack.paymentsUrl}/v1/faults`, {
    method: faults ? 'PUT' : 'DELETE',
    headers: {
      authorization: `Bearer ${stack.paymentApiKey}`,
      ...(faults ? { 'content-type': 'application/json' } : {}),
    },
    ...(faults ? { body: JSON.stringify(faults) } : {}),
  });
  if (!response.ok) throw new Error(`gateway faults: ${response.status} ${await response.text()}`);
}

/**
 * Buyers are served by the core again, asked the way a buyer asks: the showtime list through
 * the edge, fresh (the edge answers a stale copy with a `Warning` while the core is away) and
 * naming the sale. The list is a database read at the core, so a core whose pool has not
 * reconnected fails it too. The edge keeps a fresh copy up to a second: the suite does not ask
 * before a second has passed since the fault began (`FRESH_COPY_MS`).
 */
async function coreServesBuyers(stack: ChaosStack, showtimeId: string): Promise<boolean> {
  try {
    const response = await fetch(`${stack.edgeUrl}/api/showtimes`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    const list = (await response.json()) as { id: number }[];
    return (
      response.status === 200 &&
      !response.headers.has('warning') &&
      Array.isArray(list) &&
      list.some((s) => String(s.id) === showtimeId)
    );
  } catch {
    return false;
  }
}

/** How long the edge may serve a copy of the showtime list it loaded before a fault. */
export const FRESH_COPY_MS = 1_100;

/** A new buyer can join the line again (needs Redis, the room restored, the edge). */
async function buyersCanJoin(stack: ChaosStack, showtimeId: string): Promise<boolean> {
  try {
    const address = `10.250.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
    const login = await fetch(`${stack.edgeUrl}/api/auth/demo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
      body: '{}',
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
    if (login.status !== 200 && login.status !== 201) return false;
    const { token } = (await login.json()) as { token: string };
    const join = await fetch(`${stack.edgeUrl}/api/showtimes/${showtimeId}/queue`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': address },
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
    const body = (await join.json().catch(() => null)) as { state?: string } | null;
    await fetch(`${stack.edgeUrl}/api/showtimes/${showtimeId}/queue`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': address },
    }).catch(() => {});
    return join.status < 300 && typeof body?.state === 'string';
  } catch {
    return false;
  }
}

export const FAULTS: Fault[] = [
  {
    name: 'kill -9 core',
    async inject(stack, timing) {
      await stack.core.kill9();
      await sleep(timing.outageMs);
      await stack.core.start();
    },
    recovered: coreServesBuyers,
  },
  {
    name: 'PostgreSQL restart -m fast',
    inject: (stack) => stack.postgres.restart('fast'),
    recovered: coreServesBuyers,
  },
  {
    name: 'PostgreSQL restart -m immediate',
    inject: (stack) => stack.postgres.restart('immediate'),
    recovered: coreServesBuyers,
  },
  {
    name: 'Redis stopped, restarted empty',
    async inject(stack, timing) {
      await stack.redis.kill();
      await sleep(timing.outageMs);
      await stack.redis.start();
    },
    recovered: buyersCanJoin,
  },
  {
    name: 'Redis restarted empty, room paused',
    pausedRoom: true,
    async inject(stack, timing) {
      await stack.redis.kill();
      await sleep(timing.outageMs);
      await stack.redis.start();
    },
    recovered: buyersCanJoin,
  },
  {
    name: 'core killed between gateway answer and payment insert',
    async inject(stack, timing) {
      // A core that kills itself at the crash point (core/src/payments/crash-point.ts) on the
      // first checkout: the gateway has opened the session, the core never records it.
      await stack.core.kill9();
      // The buyers are already checking out: the crash may come before the core is seen ready.
      await stack.core.start({ env: { CORE_CRASH_AT: 'after-gateway-session' }, mayDieBy: 'SIGKILL' });
      const crashed = await stack.core.exited(Math.max(10_000, timing.outageMs * 4));
      if (!crashed) await stack.core.kill9();
      await sleep(timing.outageMs / 2);
      await stack.core.start();
      return crashed ? undefined : { notFired: 'no checkout reached the crash point' };
    },
    recovered: coreServesBuyers,
  },
  {
    name: 'core stalled by LOCK TABLE show_seat',
    async inject(stack, timing) {
      // Another session (a migration, an operator's script) takes the arbiter's table: every
      // hold, seat map and confirmation waits on it; the core must answer 503, not hang or 500.
      const sql = postgres(stack.databaseUrl, {
        max: 1,
        onnotice: () => {},
        connection: { application_name: 'chaos-lock' },
      });
      try {
        await sql.begin(async (tx) => {
          await tx`LOCK TABLE show_seat IN ACCESS EXCLUSIVE MODE`;
          await tx`SELECT pg_sleep(${timing.stallMs / 1000})`;
        });
      } finally {
        await sql.end({ timeout: 2 });
      }
    },
    recovered: coreServesBuyers,
  },
  {
    // The relay replays a lost stream newest first behind the live lane (core/src/jobs/outbox-relay.ts),
    // so the live sale's events reach the edge however large the retained day is.
    name: 'Redis lost with a large retained outbox',
    async inject(stack, timing) {
      // A day of earlier sales' events, published and retained: copies of the earliest sale's
      // (new event ids, that old sale's showtime), so the consumers can read them.
      const sql = postgres(stack.databaseUrl, { max: 1, onnotice: () => {} });
      const retainedAt = new Date(Date.now() - 3_600_000);
      let sample: string[];
      try {
        await sql`
          INSERT INTO outbox (type, showtime_id, payload, published_at)
          SELECT o.type, o.showtime_id, o.payload, ${retainedAt}
            FROM outbox o CROSS JOIN generate_series(1, ${RETAINED_COPIES})
           WHERE o.showtime_id = (SELECT min(showtime_id) FROM outbox)
           LIMIT ${RETAINED_ROWS}`;
        const rows = await sql<{ event_id: string }[]>`
          SELECT event_id::text FROM outbox WHERE published_at = ${retainedAt}
           ORDER BY random() LIMIT ${CATCH_UP_SAMPLE}`;
        sample = rows.map((row) => row.event_id);
      } finally {
        await sql.end({ timeout: 2 });
      }
      await stack.redis.kill();
      await sleep(timing.outageMs);
      await stack.redis.start();
      return { figures: retainedCatchUpMs(stack, sample, Date.now()).then((ms) => ({ retainedCatchUpMs: ms })) };
    },
    recovered: buyersCanJoin,
  },
  {
    name: 'gateway: webhooks dropped, slow query API',
    async inject(stack, timing) {
      // The reconciler must find the payments through the (slow) query API.
      await setGatewayFaults(stack, { dropWebhooks: true, queryDelayMs: 1_500 });
      await sleep(timing.outageMs);
      await setGatewayFaults(stack, null);
    },
    recovered: null,
  },
  {
    name: 'gateway: webhooks delayed, duplicated, reordered',
    async inject(stack, timing) {
      await setGatewayFaults(stack, {
        webhookDelayMs: 400,
        webhookCopies: 3,
        webhookOrder: 'reverse',
        reorderWindowMs: 300,
      });
      await sleep(timing.outageMs);
      await setGatewayFaults(stack, null);
    },
    recovered: null,
  },
  {
    name: 'kill -9 edge',
    async inject(stack, timing) {
      await stack.edge.kill9();
      await sleep(timing.outageMs);
      await stack.edge.start();
    },
    recovered: buyersCanJoin,
  },
  {
    name: 'queue ticker killed',
    async inject(stack, timing) {
      await stack.ticker.kill9();
      await sleep(timing.outageMs);
      await stack.ticker.start();
    },
    recovered: buyersCanJoin,
  },
];
