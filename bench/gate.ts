/**
 * `npm run bench -- gate [seconds]`: the Redis seat gate (README, "The seat gate") against the
 * database alone, 64 concurrent clients, in process (the core's hold service: gate, hold_seats,
 * retries, error mapping; no HTTP), on a private redis-server and a throwaway database:
 *
 * - hot seat: all 64 clients want the same seat; whoever gets it cancels at once and tries again.
 * - 300 seats: a showtime sold out by 64 clients each asking for a random seat (they do not look
 *   at the seat map) and keeping what they get; new showtimes until the time is up.
 *
 * For each: database attempts per successful hold (hold_seats calls, retries included; goal
 * on the hot seat ≤ 2 with the gate), p99 of hold calls (all answers, and successes alone),
 * successful holds per second. Next to them, the physical limits measured in the same run:
 * pgbench on the same statements on the hot seat (hold_seats, then the cancel, refusals caught
 * in SQL) at 32 clients, the service's pool size (the shared server has no room for 64 more
 * connections beside the service's), and redis-benchmark at 64 clients on the same gate-claim script
 * (a refused claim: what 63 of 64 buyers get on the hot seat).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import type { AccessClaims } from '../lib/access-token';
import { insertHallWithSeats, insertVenue } from '../core/src/catalog/venue-repo';
import { rectangularLayout } from '../core/src/demo/seat-layout';
import { createSeatGate } from '../core/src/gate/seat-gate';
import { createCoreMetrics } from '../core/src/metrics';
import { createHoldService } from '../core/src/seats/hold-service';
import { createIoredisStore, createKeyBuilder } from '../queue/src/index';
import { scripts } from '../queue/src/scripts.gen';
import { startPrivateRedis } from '../queue/test/redis-servers';
import { createBenchDatabase } from './lib/bench-db';
import { pgbench } from './lib/pgbench';
import { insertOnSaleShowtime } from './lib/bench-showtime';

const run = promisify(execFile);
const CLIENTS = 64;
/** The service's pool and pgbench's clients: the shared server has room for one such pool at a time beside other work. */
const CONNECTIONS = 32;
const PREFIX = 'bench:';

const HELPERS = `
CREATE FUNCTION bench_try_hold(p_show bigint, p_customer text, p_seats text[]) RETURNS text LANGUAGE plpgsql AS $$
DECLARE v_hold uuid := gen_random_uuid();
BEGIN
  PERFORM * FROM hold_seats(p_show, p_customer, p_seats, v_hold);
  RETURN v_hold::text;
EXCEPTION WHEN others THEN RETURN '';
END $$;
-- The cancel the service sends (seat-repo endHold), reduced to its writes.
CREATE FUNCTION bench_cancel(p_show bigint, p_hold text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF p_hold = '' THEN RETURN; END IF;
  UPDATE seat_hold SET status = 'CANCELLED', status_cause = 'bench', ended_at = now()
   WHERE id = p_hold::uuid AND status = 'ACTIVE';
  UPDATE show_seat SET status = 'AVAILABLE', hold_id = NULL, customer_id = NULL, hold_expires_at = NULL
   WHERE showtime_id = p_show AND hold_id = p_hold::uuid AND status = 'HELD';
END $$;`;

const hotSeatScript = `
SELECT bench_try_hold(:show, 'pgb-' || :client_id, '{A1}') AS hold \\gset
SELECT bench_cancel(:show, :hold);
`;

function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

interface Outcome {
  label: string;
  successes: number;
  attempts: number;
  seconds: number;
  p99All: number;
  p99Success: number;
  refusals: Record<string, number>;
}

export default async function gateBenchmark(args: string[]) {
  const seconds = Number(args[0] ?? 5);
  const db = await createBenchDatabase(CONNECTIONS);
  const server = await startPrivateRedis();
  const port = server.ports[0]!;
  const redis = new Redis({
    port,
    host: '127.0.0.1',
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 2_000,
    lazyConnect: true,
  });
  try {
    await redis.connect();
    await db.sql.unsafe(HELPERS);
    const venue = await insertVenue(db.sql, { name: 'Bench', city: '' });
    const hall = await insertHallWithSeats(db.sql, {
      venueId: venue.id,
      name: 'Bench hall',
      seats: rectangularLayout({ rows: 15, columns: 20 }),
    });
    const newShowtime = async (title: string) => (await insertOnSaleShowtime(db.sql, hall.id, title, 50)).id;
    const seatCodes = (
      await db.sql<
        { seat_code: string }[]
      >`SELECT seat_code FROM hall_seat WHERE hall_id = ${hall.id} ORDER BY seat_code`
    ).map((r) => r.seat_code);
    await db.sql`VACUUM ANALYZE`;

    function service(gated: boolean) {
      const metrics = createCoreMetrics();
      const gate = gated
        ? createSeatGate({
            sql: db.sql,
            store: createIoredisStore(redis),
            keyPrefix: PREFIX,
            registry: metrics.registry,
          })
        : null;
      const holds = createHoldService({ sql: db.sql, metrics, gate });
      const attempts = async () => (await metrics.holdDatabaseAttempts.get()).values[0]?.value ?? 0;
      return { holds, attempts };
    }

    async function hotSeat(gated: boolean): Promise<Outcome> {
      const { holds, attempts } = service(gated);
      const showtimeId = await newShowtime(`hot ${gated ? 'gated' : 'alone'}`);
      const all: number[] = [];
      const won: number[] = [];
      const refusals: Record<string, number> = {};
      const until = performance.now() + seconds * 1000;
      await Promise.all(
        Array.from({ length: CLIENTS }, async (_, i) => {
          const access: AccessClaims = {
            customerId: `hot-${i}`,
            showtimeId,
            sessionId: '',
            expiresAtMs: Date.now() + 3_600_000,
          };
          while (performance.now() < until) {
            const started = performance.now();
            try {
              const hold = await holds.createHold({ showtimeId, customerId: access.customerId, seats: ['A1'] });
              const ms = performance.now() - started;
              all.push(ms);
              won.push(ms);
              await holds.cancelHold(hold.holdId, access);
            } catch (error) {
              all.push(performance.now() - started);
              const code = (error as { code?: string }).code ?? 'error';
              refusals[code] = (refusals[code] ?? 0) + 1;
            }
          }
        }),
      );
      return {
        label: `hot seat, ${gated ? 'gate' : 'database alone'}`,
        successes: won.length,
        attempts: await attempts(),
        seconds,
        p99All: percentile(all, 99),
        p99Success: percentile(won, 99),
        refusals,
      };
    }

    async function sellOuts(gated: boolean): Promise<Outcome> {
      const { holds, attempts } = service(gated);
      const all: number[] = [];
      const won: number[] = [];
      const refusals: Record<string, number> = {};
      const started = performance.now();
      let rounds = 0;
      while (performance.now() - started < seconds * 1000) {
        const showtimeId = await newShowtime(`sell-out ${gated ? 'gated' : 'alone'} ${rounds}`);
        let sold = 0;
        await Promise.all(
          Array.from({ length: CLIENTS }, async (_, i) => {
            while (sold < seatCodes.length) {
              const seat = seatCodes[Math.floor(Math.random() * seatCodes.length)]!;
              const t0 = performance.now();
              try {
                await holds.createHold({ showtimeId, customerId: `fan-${rounds}-${i}`, seats: [seat] });
                const ms = performance.now() - t0;
                all.push(ms);
                won.push(ms);
                sold++;
              } catch (error) {
                all.push(performance.now() - t0);
                const code = (error as { code?: string }).code ?? 'error';
                refusals[code] = (refusals[code] ?? 0) + 1;
              }
            }
          }),
        );
        rounds++;
      }
      const elapsed = (performance.now() - started) / 1000;
      return {
        label: `300 seats, ${gated ? 'gate' : 'database alone'} (${rounds} sell-outs)`,
        successes: won.length,
        attempts: await attempts(),
        seconds: elapsed,
        p99All: percentile(all, 99),
        p99Success: percentile(won, 99),
        refusals,
      };
    }

    const outcomes: Outcome[] = [];
    for (const gated of [false, true]) {
      console.log(`hot seat, ${gated ? 'with' : 'without'} the gate, ${CLIENTS} clients, ${seconds}s …`);
      outcomes.push(await hotSeat(gated));
    }
    for (const gated of [false, true]) {
      console.log(`300-seat sell-outs, ${gated ? 'with' : 'without'} the gate, ${CLIENTS} clients, ${seconds}s …`);
      outcomes.push(await sellOuts(gated));
    }

    console.log(`pgbench: hold_seats then the cancel on one seat, ${CONNECTIONS} clients, ${seconds}s …`);
    const pgShow = await newShowtime('hot pgbench');
    const pg = await pgbench({
      databaseUrl: db.url,
      script: hotSeatScript,
      clients: CONNECTIONS,
      seconds,
      variables: { show: pgShow },
    });
    const [pgWon] = await db.sql<
      { n: number }[]
    >`SELECT count(*)::int AS n FROM seat_hold WHERE showtime_id = ${pgShow}`;

    console.log(`redis-benchmark: gate-claim refused on a taken seat, ${CLIENTS} clients …`);
    const rbShow = await newShowtime('hot redis-benchmark');
    const gateForRb = service(true);
    await gateForRb.holds.createHold({ showtimeId: rbShow, customerId: 'owner', seats: ['A1'] }); // builds the gate, takes A1
    await redis.script('LOAD', scripts.gateClaim.source);
    const keys = createKeyBuilder(PREFIX).forGate(String(rbShow));
    const { stdout } = await run(
      'redis-benchmark',
      [
        '-h',
        '127.0.0.1',
        '-p',
        String(port),
        '-n',
        '200000',
        '-c',
        String(CLIENTS),
        '-P',
        '1',
        '-q',
        'EVALSHA',
        scripts.gateClaim.sha1,
        '5',
        ...keys,
        'rb-buyer',
        'rb-hold',
        'A1',
      ],
      { maxBuffer: 16 * 1024 * 1024 },
    );
    const rb = Number(/([\d.]+) requests per second/.exec(stdout.split('\r').pop() ?? stdout)?.[1] ?? NaN);

    const load = (await run('cat', ['/proc/loadavg'])).stdout.trim().split(' ').slice(0, 3).join(' ');
    console.log('');
    console.log(`  load average before the summary: ${load}`);
    console.log(
      '  scenario                                   holds/s   db attempts/success   p99 all   p99 success   refusals',
    );
    for (const o of outcomes) {
      console.log(
        `  ${o.label.padEnd(42)}${(o.successes / o.seconds).toFixed(0).padStart(8)}   ${(o.attempts / Math.max(1, o.successes)).toFixed(2).padStart(19)}   ${o.p99All.toFixed(1).padStart(5)} ms   ${o.p99Success.toFixed(1).padStart(8)} ms   ${JSON.stringify(o.refusals)}`,
      );
    }
    const [hotAlone, hotGate] = outcomes;
    console.log('');
    console.log(`  physical limits, same run:`);
    console.log(
      `  pgbench, hold_seats + cancel on one seat:   ${(pgWon!.n / seconds).toFixed(0)} holds/s, ${pg.tps.toFixed(0)} attempts/s (${(pg.tps / Math.max(1, pgWon!.n / seconds)).toFixed(1)} attempts/success)`,
    );
    console.log(`  redis-benchmark, gate-claim refused:        ${rb.toFixed(0)} claims/s`);
    console.log(
      `  hot seat holds/s, gate / database alone:    ${(hotGate!.successes / Math.max(1, hotAlone!.successes)).toFixed(2)}`,
    );
    console.log(
      `  hot seat holds/s, gate / pgbench:           ${(hotGate!.successes / seconds / Math.max(1, pgWon!.n / seconds)).toFixed(2)}`,
    );
    const goal = hotGate!.attempts / Math.max(1, hotGate!.successes);
    console.log(
      `  goal ≤ 2 database attempts per success on the hot seat with the gate: ${goal.toFixed(2)} (${goal <= 2 ? 'met' : 'not met'})`,
    );
  } finally {
    redis.disconnect();
    await server.stop();
    await db.drop();
  }
}
