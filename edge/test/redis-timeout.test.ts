/**
 * The edge's Redis command timeout (lib/patient-redis.ts), on a private redis-server:
 * - this process starved for longer than the timeout (a real busy loop) while Redis answers
 *   in time: the join gets its place, not a 503 (a plain timer fires before the loop reads
 *   the reply that has been waiting in the socket);
 * - a Redis that stops answering (the server process stopped with SIGSTOP, connection open):
 *   the join fails as "the waiting room is briefly unavailable" (503) about a second after
 *   it was sent, not after a hang, and the next join after the server resumes succeeds.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { AppError } from '../../lib/errors';
import { PatientRedis } from '../../lib/patient-redis';
import { startPrivateRedis, type PrivateRedis } from '../../queue/test/redis-servers';
import { parseEdgeConfig } from '../src/config';
import { startEdge, type RunningEdge } from '../src/node';
import { EDGE_ADMIN_TOKEN, fastRoom, testTokenKeys } from './edge-harness';

let redis: PrivateRedis;
let edge: RunningEdge;
const showtimeId = '9100';

beforeAll(async () => {
  redis = await startPrivateRedis();
  edge = await startEdge(
    parseEdgeConfig({
      EDGE_PORT: '0',
      EDGE_HOST: '127.0.0.1',
      CORE_URL: 'http://127.0.0.1:9',
      ADMIN_TOKEN: EDGE_ADMIN_TOKEN,
      REDIS_URL: `redis://127.0.0.1:${redis.ports[0]}`,
      ROOM_SYNC_MS: '600000',
      LOG_LEVEL: 'silent',
    }),
    { tokenKeys: await testTokenKeys(), consumeEvents: false },
  );
  expect((await edge.app.rooms.engine.configure(showtimeId, { ...fastRoom, capacity: 1 })).ok).toBe(true);
  await edge.app.rooms.join(showtimeId, 'warm-up'); // loads the scripts
});
afterAll(async () => {
  await edge?.close();
  await redis?.stop();
});

const busyFor = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // the process does nothing else meanwhile: no timer, no socket read
  }
};

it('a join sent just before the process starves for 1.5 s gets its place: the reply waited in the socket', async () => {
  for (let round = 0; round < 3; round++) {
    const joined = edge.app.rooms.join(showtimeId, `starved-${round}`);
    await new Promise((resolve) => setImmediate(resolve)); // the script call is written
    busyFor(1_500);
    await expect(joined).resolves.toMatchObject({ state: 'waiting' });
  }
});

it('the same starvation with a plain ioredis command timeout fails the command Redis answered (the harness produces the race)', async () => {
  const { default: Redis } = await import('ioredis');
  const plain = new Redis(`redis://127.0.0.1:${redis.ports[0]}`, { commandTimeout: 1_000 });
  const patient = new PatientRedis(`redis://127.0.0.1:${redis.ports[0]}`, { commandTimeout: 1_000 });
  try {
    await Promise.all([plain.ping(), patient.ping()]);
    const outcomes = [plain.ping(), patient.ping()].map((p) =>
      p.then(
        () => 'answered',
        (e: Error) => e.message,
      ),
    );
    await new Promise((resolve) => setImmediate(resolve));
    busyFor(1_500);
    expect(await Promise.all(outcomes)).toEqual(['Command timed out', 'answered']);
  } finally {
    plain.disconnect();
    patient.disconnect();
  }
});

it('a Redis that stops answering fails the join with 503 about a second later, and joins work again once it resumes', async () => {
  const pid = Number(
    execFileSync('pgrep', ['-f', `redis-server 127.0.0.1:${redis.ports[0]}`], { encoding: 'utf8' })
      .trim()
      .split('\n')[0],
  );
  expect(pid).toBeGreaterThan(0);
  process.kill(pid, 'SIGSTOP');
  const startedAt = performance.now();
  let refused: unknown;
  try {
    await edge.app.rooms.join(showtimeId, 'while-stopped');
  } catch (error) {
    refused = error;
  } finally {
    process.kill(pid, 'SIGCONT');
  }
  const tookMs = performance.now() - startedAt;
  expect(refused).toBeInstanceOf(AppError);
  expect((refused as AppError).status).toBe(503);
  expect((refused as AppError).code).toBe('QUEUE_UNAVAILABLE');
  expect(tookMs).toBeGreaterThanOrEqual(1_000);
  expect(tookMs).toBeLessThan(5_000);
  await expect(edge.app.rooms.join(showtimeId, 'after-resume')).resolves.toMatchObject({ state: 'waiting' });
});
