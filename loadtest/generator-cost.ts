/**
 * `npx tsx loadtest/generator-cost.ts [iterations]`: what one request costs the load generator
 * in the k6 scripts' own code, flash-sale (a 1,440-seat hall, a seat map of ~150 KB) against
 * poll-storm, run on the k6 shims against the stack in process (DATABASE_URL and REDIS_URL, or
 * embedded PGlite and the in-process store). Reports the script's time per request (V8 here;
 * k6's goja is slower, so use the ratio and measure c_gen on a k6 host, see CAPACITY.md),
 * bytes parsed per request and the largest buyer state kept.
 */
import { createSale } from './journey/setup';
import { startLocalStack } from './journey/stack';
import { runK6Script, type ShimRun } from './k6shim/run-shim';

const iterations = Number(process.argv[2] ?? 3000);
const stack = await startLocalStack({
  databaseUrl: process.env.DATABASE_URL || null,
  redisUrl: process.env.REDIS_URL || null,
  keyPrefix: `gencost:${Date.now().toString(36)}:`,
});

async function measure(script: string, exec: string, rows: number, columns: number, extra: Record<string, string>) {
  const { showtimeId } = await createSale({
    coreUrl: stack.coreUrl,
    edgeUrl: stack.edgeUrl,
    adminToken: stack.adminToken,
    rows,
    columns,
    holdTtlMs: 15_000,
    capacity: 40,
    admitPerMinute: 1200,
    sessionTtlSeconds: 30,
  });
  const env = {
    BASE_URL: stack.edgeUrl,
    PAYMENT_URL: stack.paymentsUrl,
    CORE_URL: stack.coreUrl,
    ADMIN_TOKEN: stack.adminToken,
    PAYMENT_API_KEY: stack.paymentApiKey,
    SHOWTIME_ID: showtimeId,
    PEAK_RPS: '200',
    DURATION: '60s',
    ...extra,
  };
  const run: ShimRun = await runK6Script(script, exec, env, { iterations, maxMs: 60_000 });
  const sent = Object.entries(run.http)
    .filter(([endpoint]) => endpoint !== 'admin' && endpoint !== 'catalog')
    .reduce((n, [, statuses]) => n + Object.values(statuses).reduce((a, b) => a + b, 0), 0);
  const parsed = run.metrics.generator_parsed_bytes?.sum ?? 0;
  return {
    script,
    requests: sent,
    scriptUsPerRequest: Math.round((run.scriptMs * 1000) / Math.max(1, sent)),
    parsedBytesPerRequest: Math.round(parsed / Math.max(1, sent)),
    seatMapReads: run.http.seats?.['200'] ?? 0,
    largestBuyerBytes: run.metrics.generator_buyer_bytes?.max ?? null,
  };
}

try {
  const flash = await measure('flash-sale.js', 'buyer', 24, 60, { BUYERS_PER_VU: '50' });
  const polls = await measure('poll-storm.js', 'crowd', 2, 5, {
    WARMUP: '2s',
    ADMIT_PER_MINUTE: '60',
    BUYERS_PER_VU: '50',
    RESPONSE_SECONDS: '0.01',
  });
  console.table([flash, polls]);
  console.log(
    `flash-sale / poll-storm script time per request: ${(flash.scriptUsPerRequest / Math.max(1, polls.scriptUsPerRequest)).toFixed(2)}×`,
  );
} finally {
  await stack.close();
}
