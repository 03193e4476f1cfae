/**
 * `npm run loadtest:verify [-- --showtime 12 --showtime 13]`: checks the invariants after any
 * load run (k6 or the journey harness) on DATABASE_URL, and with REDIS_URL (and
 * REDIS_KEY_PREFIX) also looks for the booking events in the stream. With PAYMENT_URL and
 * PAYMENT_API_KEY (or --payments-url, --payment-api-key) and showtimes named, it also reconciles
 * money from the gateway's side (chaos/checks/money.ts: paid sessions without a booking, charges
 * the core never recorded, holds paid twice, refunds the gateway has not made). Prints the
 * figures; exits 1 on any breach, 2 when it cannot check.
 */
import { Redis } from 'ioredis';
import { parseArgs } from 'node:util';
import { connectDatabase } from '../core/src/db/connect';
import { moneyCheck } from '../chaos/checks/money';
import { checkInvariants, formatInvariantReport } from './invariants';

const { values } = parseArgs({
  options: {
    showtime: { type: 'string', multiple: true },
    'database-url': { type: 'string' },
    'redis-url': { type: 'string' },
    'key-prefix': { type: 'string' },
    'payments-url': { type: 'string' },
    'payment-api-key': { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});

const databaseUrl = values['database-url'] ?? process.env.DATABASE_URL;
if (!databaseUrl) {
  console.error('loadtest:verify needs DATABASE_URL (or --database-url): the database the run used.');
  process.exit(2);
}
const showtimeIds = values.showtime?.map(Number);
if (showtimeIds?.some((id) => !Number.isSafeInteger(id) || id <= 0)) {
  console.error('--showtime takes a numeric showtime id');
  process.exit(2);
}
const redisUrl = values['redis-url'] ?? process.env.REDIS_URL;
const sql = connectDatabase(databaseUrl, { max: 1, applicationName: 'loadtest-verify', sequentialScans: true });
const redis = redisUrl ? new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 }) : null;
let exitCode = 0;
try {
  if (redis) await redis.connect();
  const report = await checkInvariants(sql, {
    ...(showtimeIds ? { showtimeIds } : {}),
    ...(redis
      ? { redis: { client: redis, keyPrefix: values['key-prefix'] ?? process.env.REDIS_KEY_PREFIX ?? '' } }
      : {}),
  });
  console.log(
    values.json
      ? JSON.stringify(report, null, 2)
      : `Invariants on ${showtimeIds ? `showtime(s) ${showtimeIds.join(', ')}` : 'every showtime'}:\n${formatInvariantReport(report)}`,
  );
  exitCode = report.breaches.length === 0 ? 0 : 1;
  const paymentsUrl = values['payments-url'] ?? process.env.PAYMENT_URL;
  const apiKey = values['payment-api-key'] ?? process.env.PAYMENT_API_KEY;
  if (paymentsUrl && apiKey && showtimeIds) {
    for (const showtimeId of showtimeIds) {
      const figures = await moneyCheck.run({ sql, showtimeId, gateway: { url: paymentsUrl, apiKey } });
      console.log(
        `  money at the gateway, showtime ${showtimeId}: ${Object.entries(figures)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}`,
      );
      if (Object.values(figures).some((v) => v > 0)) exitCode = 1;
    }
  }
} catch (error) {
  console.error(`loadtest:verify could not check: ${(error as Error).message}`);
  exitCode = 2;
} finally {
  redis?.disconnect();
  await sql.end({ timeout: 2 });
}
process.exit(exitCode);
