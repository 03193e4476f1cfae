/**
 * One bounded journey run: a stack (started here, or one already running), a fresh sale,
 * N buyers through the shared journey with a live progress line and a sampler, then the
 * invariants, a text report and a self-contained HTML report. `npm run loadtest` and the CI
 * smoke test both call `runJourney`.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { Sql } from 'postgres';
import { connectDatabase } from '../../core/src/db/connect';
import { checkInvariants, type InvariantReport } from '../invariants';
import type { JourneySettings } from '../lib/journey.js';
import { runBuyers, type DriverResult } from './driver';
import { renderHtmlReport } from './html-report';
import { Recorder } from './recorder';
import { renderTextReport } from './report';
import type { JourneyRunOptions } from './run-options';
import { createSale, readLiveFigures, type LiveFigures } from './setup';
import { startLocalStack, type LocalStack } from './stack';

export type { JourneyRunOptions, ReportContext } from './run-options';

export interface JourneyRunResult {
  showtimeId: string;
  recorder: Recorder;
  driver: DriverResult;
  invariants: InvariantReport | null;
  live: LiveFigures;
  text: string;
  htmlPath: string | null;
}

export async function runJourney(options: JourneyRunOptions): Promise<JourneyRunResult> {
  const external = Boolean(options.baseUrl);
  let stack: LocalStack | null = null;
  if (!external) {
    stack = await startLocalStack({
      databaseUrl: options.databaseUrl ?? null,
      redisUrl: options.redisUrl ?? null,
      keyPrefix: options.keyPrefix ?? `loadtest:${Date.now().toString(36)}:`,
      ...(options.adminToken ? { adminToken: options.adminToken } : {}),
      ...(options.paymentApiKey ? { paymentApiKey: options.paymentApiKey } : {}),
      ...(options.shedLagMs !== undefined ? { shedLagMs: options.shedLagMs } : {}),
    });
  }
  const edgeUrl = stack?.edgeUrl ?? options.baseUrl!;
  const coreUrl = stack?.coreUrl ?? options.coreUrl ?? null;
  const serviceToken = options.serviceToken;
  const paymentsUrl = stack?.paymentsUrl ?? options.paymentsUrl ?? 'http://127.0.0.1:8082';
  const adminToken = stack?.adminToken ?? options.adminToken ?? 'dev-admin-token-change-me';
  const paymentApiKey = stack?.paymentApiKey ?? options.paymentApiKey ?? 'sk_test_sandbox';
  const log = (line: string) => options.progress !== 'off' && console.log(line);
  let ownSql: Sql | null = null;

  try {
    const room = {
      edgeUrl,
      adminToken,
      capacity: options.capacity,
      admitPerMinute: options.admitPerMinute,
      sessionTtlSeconds: options.sessionTtlSeconds,
      ...(options.powDifficulty !== undefined ? { powDifficulty: options.powDifficulty } : {}),
    };
    let showtimeId = options.showtimeId ?? null;
    if (!showtimeId) {
      if (!coreUrl) throw new Error('Creating a showtime needs the core (CORE_URL); or pass SHOWTIME_ID');
      showtimeId = (
        await createSale({
          ...room,
          coreUrl,
          serviceToken,
          rows: options.rows,
          columns: options.columns,
          holdTtlMs: options.holdTtlMs,
        })
      ).showtimeId;
    }
    log(
      `loadtest: ${stack?.description ?? `against ${edgeUrl}`}; showtime ${showtimeId}; ${options.buyers} buyers over ${options.rampSeconds}s ramp, at most ${options.durationSeconds}s; room capacity ${options.capacity}, ${options.admitPerMinute}/min`,
    );

    const recorder = new Recorder();
    const journey: JourneySettings = {
      showtimeId,
      party: options.party,
      maxHoldTries: 3,
      seatPreference: options.seatPreference,
      paymentApiKey,
      maxWaitMs: options.durationSeconds * 1000,
      random: Math.random,
      sha256Hex: (text) => createHash('sha256').update(text).digest('hex'),
    };
    const live: LiveFigures = {};
    let sampling = false;
    let lastLine = 0;
    const driver = await runBuyers({
      edgeUrl,
      paymentsUrl,
      buyers: options.buyers,
      rampSeconds: options.rampSeconds,
      durationSeconds: options.durationSeconds,
      journey,
      recorder,
      onTick: async ({ elapsedMs, active, done }) => {
        if (sampling) return;
        sampling = true;
        try {
          Object.assign(live, await readLiveFigures({ coreUrl, edgeUrl, adminToken, serviceToken }, showtimeId!));
          const now = Date.now();
          recorder.sample(now, {
            waiting: live.waiting,
            active: live.active,
            seatsAvailable: live.seatsAvailable,
            seatsHeld: live.seatsHeld,
            seatsBooked: live.seatsBooked,
          } as object);
          const second = recorder.seconds[recorder.seconds.length - 2];
          const line = `  ${(elapsedMs / 1000).toFixed(0).padStart(4)}s  buyers ${active} active / ${done} done  req/s ${second ? second.sent : 0}  p99 ${second ? second.latency.percentile(0.99).toFixed(1) : '-'} ms  waiting ${live.waiting ?? '?'}  admitted ${recorder.counters.get('admitted') ?? 0}  booked ${recorder.counters.get('booked') ?? 0}  seats left ${live.seatsAvailable ?? '?'}  in flight ${recorder.inFlight}`;
          if (options.progress === 'tty') process.stdout.write(`\r${line.padEnd(150)}`);
          else if (options.progress === 'lines' && now - lastLine >= 5000) {
            lastLine = now;
            console.log(line);
          }
        } finally {
          sampling = false;
        }
      },
    });
    if (options.progress === 'tty') process.stdout.write('\n');
    await new Promise((resolve) => setTimeout(resolve, 1500)); // last webhooks and the outbox relay
    Object.assign(live, await readLiveFigures({ coreUrl, edgeUrl, adminToken, serviceToken }, showtimeId));

    let invariants: InvariantReport | null = null;
    const sql =
      stack?.sql ??
      (options.databaseUrl ? (ownSql = connectDatabase(options.databaseUrl, { max: 1, sequentialScans: true })) : null);
    if (sql) {
      const redis = options.redisUrl && options.checkStream !== false ? new Redis(options.redisUrl) : null;
      try {
        invariants = await checkInvariants(sql, {
          showtimeIds: [Number(showtimeId)],
          ...(redis ? { redis: { client: redis, keyPrefix: options.keyPrefix ?? '' } } : {}),
        });
      } finally {
        redis?.disconnect();
      }
    }
    const context = { showtimeId, options, live, edgeUrl, description: stack?.description ?? `against ${edgeUrl}` };
    const text = renderTextReport(recorder, driver, invariants, context);
    let htmlPath: string | null = null;
    if (options.reportDir) {
      mkdirSync(options.reportDir, { recursive: true });
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      htmlPath = join(options.reportDir, `journey-${stamp}.html`);
      writeFileSync(htmlPath, renderHtmlReport(recorder, driver, invariants, context, text));
      writeFileSync(join(options.reportDir, `journey-${stamp}.txt`), text);
    }
    return { showtimeId, recorder, driver, invariants, live, text, htmlPath };
  } finally {
    await ownSql?.end({ timeout: 2 });
    await stack?.close();
  }
}
