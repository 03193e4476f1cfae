/**
 * `npm run bench -- pow [--max-difficulty=N] [--seconds=N]`
 *
 * What proof of work at join costs the edge, and what it costs a buyer:
 * 1. Verification: the join gate checking a valid solution (HMAC of the challenge, one
 *    SHA-256, spending it in the in-process guard store), per join, next to a bare poll
 *    answered from the snapshot through the same app in process, and next to the physical
 *    limit, one raw SHA-256 (node:crypto) on this machine.
 * 2. Solving: the median time to solve a challenge at each difficulty on one core of this
 *    machine (node:crypto, nonces counted up), so an operator can pick `powDifficulty` and
 *    `powMaxDifficulty`. A phone's browser is several times slower than this.
 */
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Hono } from 'hono';
import { parseEdgeConfig } from '../edge/src/config';
import { startEdge } from '../edge/src/node';
import { createPowChallenges } from '../edge/src/pow/pow-challenge';
import { createPowGate } from '../edge/src/pow/pow-gate';
import { createPowGovernor } from '../edge/src/pow/pow-governor';
import { solvePow } from '../edge/src/pow/pow-solve-node';
import { createMemoryGuardStore } from '../edge/src/state/guard-store';
import { generateSigningJwk, loadTokenKeys } from '../lib/token-keys';

/** Challenges are bound to one client address and customer; the bench is one client. */
const BENCH_CLIENT = { address: '198.51.100.1', customerId: 'bench-customer' };

function option(args: string[], name: string, fallback: number): number {
  const found = args.find((a) => a.startsWith(`--${name}=`));
  return found ? Number(found.split('=')[1]) : fallback;
}

/** Runs `op` back to back for `ms`; microseconds per call. */
async function microsPerCall(ms: number, op: (i: number) => unknown): Promise<number> {
  let calls = 0;
  const started = performance.now();
  while (performance.now() - started < ms) {
    for (let k = 0; k < 50; k++) await op(calls++);
  }
  return ((performance.now() - started) * 1000) / calls;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export default async function pow(args: string[]) {
  const seconds = option(args, 'seconds', 3);
  const maxDifficulty = option(args, 'max-difficulty', 20);
  const secret = 'bench-pow-secret';

  // 1. Verification per join, next to a bare poll and a raw hash.
  const challenges = createPowChallenges({ secret, ttlMs: 600_000 });
  const gate = createPowGate({
    challenges,
    governor: createPowGovernor({ showtimeJoinsPerSecond: 1e9, addressJoinsPerMinute: 1e9 }),
    guard: createMemoryGuardStore({ maxKeys: 2_000_000 }),
    settingsOf: async () => ({ powDifficulty: 1, powMaxDifficulty: 0 }),
  });
  const solved = await Promise.all(
    Array.from({ length: 20_000 }, async () => {
      const challenge = await challenges.issue('4242', 1, BENCH_CLIENT);
      return { 'x-pow-challenge': challenge, 'x-pow-nonce': solvePow(challenge, 1).nonce };
    }),
  );
  const gated = new Hono().post('/join', async (c) => (await gate.check(c, '4242', BENCH_CLIENT)) ?? c.body(null, 204));
  let refused = 0;
  const verifyMicros = await microsPerCall(seconds * 1000, async (i) => {
    const response = await gated.request('/join', { method: 'POST', headers: solved[i % solved.length]! });
    if (response.status !== 204) refused++;
  });
  const joinsChecked = Math.round((seconds * 1e6) / verifyMicros);
  const hashMicros = await microsPerCall(seconds * 1000, (i) =>
    createHash('sha256').update(`v1.4242.1.${i}:${i}`).digest(),
  );

  const tokenKeys = await loadTokenKeys({ signingJwk: await generateSigningJwk('bench-pow') });
  const edge = await startEdge(
    parseEdgeConfig({
      EDGE_PORT: '0',
      EDGE_HOST: '127.0.0.1',
      ADMIN_TOKEN: 'bench-admin-token-0123456789',
      CORE_URL: 'http://127.0.0.1:9',
      FLOOD_POINTS: '1000000000',
      SNAPSHOT_TTL_MS: '10000',
      LOG_LEVEL: 'error',
    }),
    { tokenKeys, consumeEvents: false },
  );
  let pollMicros = Number.NaN;
  try {
    const engine = edge.app.rooms.engine;
    await engine.configure('4242', { state: 'open', capacity: 10, admitPerMinute: 60, tickGapMs: 100 });
    for (let i = 0; i < 2_000; i++) await engine.join('4242', `bench-${i}`);
    const { createQueueTokens } = await import('../edge/src/tokens/queue-token');
    const token = await createQueueTokens(tokenKeys, { ttlMs: 3_600_000, clockToleranceMs: 5_000 }).sign({
      customerId: 'bench-1999',
      showtimeId: '4242',
      ticket: 2_000,
    });
    const poll = () => edge.app.request('/api/showtimes/4242/queue', { headers: { 'x-queue-token': token } });
    if ((await poll()).status !== 200) throw new Error('the bare poll did not answer 200');
    pollMicros = await microsPerCall(seconds * 1000, async () => (await poll()).arrayBuffer());
  } finally {
    await edge.close();
  }

  console.log(`
verification per join (gate: HMAC + SHA-256 + one-time mark), in process
  proof-of-work check     ${verifyMicros.toFixed(1)} µs per join (${joinsChecked.toLocaleString('en')} in ${seconds} s, ${refused} refused)
  bare poll (snapshot)    ${pollMicros.toFixed(1)} µs per poll through the same app  → check / poll = ${(verifyMicros / pollMicros).toFixed(2)}
  raw SHA-256 (limit)     ${hashMicros.toFixed(2)} µs per hash  → check / hash = ${(verifyMicros / hashMicros).toFixed(0)}
  (in production the one-time mark is one Redis SET NX, a round trip like the join's own script)`);

  // 2. Solve time per difficulty on one core.
  console.log(`\nsolve time per difficulty, one core of this machine (node:crypto; a phone is several times slower)`);
  console.log('  bits   solutions   median ms   p90 ms    median hashes');
  for (let difficulty = 8; difficulty <= maxDifficulty; difficulty += 2) {
    const runs = difficulty <= 16 ? 21 : difficulty <= 18 ? 11 : 5;
    const times: number[] = [];
    const hashes: number[] = [];
    for (let r = 0; r < runs; r++) {
      const challenge = await challenges.issue('4242', difficulty, BENCH_CLIENT);
      const started = performance.now();
      const solution = solvePow(challenge, difficulty);
      times.push(performance.now() - started);
      hashes.push(solution.hashes);
    }
    const sorted = [...times].sort((a, b) => a - b);
    const p90 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.9))]!;
    console.log(
      `  ${String(difficulty).padStart(4)}   ${String(runs).padStart(9)}   ${median(times).toFixed(1).padStart(9)}   ${p90.toFixed(1).padStart(6)}    ${median(hashes).toLocaleString('en').padStart(12)}`,
    );
  }
}
