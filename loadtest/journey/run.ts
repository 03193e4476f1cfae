/**
 * `npm run loadtest`: the buyer journey in Node against the local stack, bounded in buyers and
 * time, loopback only. By default it starts the stack in this process (DATABASE_URL or embedded
 * PGlite; REDIS_URL or the in-process room store), creates a fresh showtime with a short hold
 * TTL and configures its room. With BASE_URL it targets a stack that is already running
 * (CORE_URL to create the showtime or SHOWTIME_ID to reuse one; PAYMENT_URL for approvals;
 * DATABASE_URL to check the invariants). Exits 1 when an invariant is broken.
 *
 * Settings (environment): BUYERS (400), DURATION (90 s), RAMP (15 s), ROWS (10), COLUMNS (15),
 * PARTY (2), HOLD_TTL_MS (20000), ROOM_CAPACITY (40), ADMIT_PER_MINUTE (900),
 * SESSION_TTL_SECONDS (60), SEAT_PREFERENCE (best|random), POW_DIFFICULTY (unset: the room's), REPORT_DIR (loadtest/reports),
 * ADMIN_TOKEN, CORE_SERVICE_TOKEN, PAYMENT_API_KEY, REDIS_KEY_PREFIX.
 */
import { runJourney } from './run-journey';

const env = process.env;
const num = (name: string, fallback: number) => {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value.replace(/s$/, ''));
  if (!Number.isFinite(parsed) || parsed <= 0) throw new Error(`${name} must be a positive number, got "${value}"`);
  return parsed;
};

for (const name of ['BASE_URL', 'CORE_URL', 'PAYMENT_URL']) {
  const value = env[name];
  if (value && !/^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?(\/|$)/.test(value)) {
    console.error(
      `${name}=${value}: the journey harness runs on loopback only (use the k6 scripts for remote targets)`,
    );
    process.exit(2);
  }
}

const result = await runJourney({
  buyers: num('BUYERS', 400),
  durationSeconds: num('DURATION', 90),
  rampSeconds: num('RAMP', 15),
  rows: num('ROWS', 10),
  columns: num('COLUMNS', 15),
  party: num('PARTY', 2),
  holdTtlMs: num('HOLD_TTL_MS', 20_000),
  capacity: num('ROOM_CAPACITY', 40),
  admitPerMinute: num('ADMIT_PER_MINUTE', 900),
  sessionTtlSeconds: num('SESSION_TTL_SECONDS', 60),
  seatPreference: env.SEAT_PREFERENCE === 'random' ? 'random' : 'best',
  // Proof of work at join: every buyer solves the edge's challenge at this many bits.
  ...(env.POW_DIFFICULTY ? { powDifficulty: num('POW_DIFFICULTY', 0) } : {}),
  baseUrl: env.BASE_URL || null,
  coreUrl: env.CORE_URL || null,
  paymentsUrl: env.PAYMENT_URL || null,
  showtimeId: env.SHOWTIME_ID || null,
  ...(env.ADMIN_TOKEN ? { adminToken: env.ADMIN_TOKEN } : {}),
  ...(env.CORE_SERVICE_TOKEN ? { serviceToken: env.CORE_SERVICE_TOKEN } : {}),
  ...(env.PAYMENT_API_KEY ? { paymentApiKey: env.PAYMENT_API_KEY } : {}),
  databaseUrl: env.DATABASE_URL || null,
  redisUrl: env.REDIS_URL || null,
  ...(env.REDIS_KEY_PREFIX ? { keyPrefix: env.REDIS_KEY_PREFIX } : {}),
  reportDir: env.REPORT_DIR ?? 'loadtest/reports',
  progress: process.stdout.isTTY ? 'tty' : 'lines',
});

console.log(`\n${result.text}`);
if (result.htmlPath) console.log(`\nHTML report: ${result.htmlPath}`);
process.exit(result.invariants && result.invariants.breaches.length > 0 ? 1 : 0);
