/**
 * `npm run bench -- queue [--joins=N] [--polls=N] [--concurrency=N]`
 *
 * Joins and polls per second through the ioredis adapter, next to `redis-benchmark` running
 * the very same EVALSHA with and without pipelining (-P 16), in one run, and the ratio.
 * Then Redis commands per poll for a room of 10,000 waiting buyers: measured for a poll
 * that reaches Redis, and simulated for the edge's snapshot scheme (most polls answered
 * from a per-showtime snapshot by `estimateFromSnapshot`). Last, the admission step (tick,
 * offering ADMIT_BATCH places a step) with the fairness journal on and off, alternated over
 * rounds: the journal's cost as a ratio (goal: within 10 %).
 *
 * Uses the local Redis (REDIS_URL, default 127.0.0.1:6379) under its own key prefix and
 * deletes that prefix afterwards.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { createIoredisStore } from '../queue/src/ioredis-store';
import { createRoomEngine } from '../queue/src/room-engine';
import { createKeyBuilder, ROOM_KEY_NAMES } from '../queue/src/keys';
import { scripts } from '../queue/src/scripts.gen';
import type { ScriptStore } from '../queue/src/store';
import { simulateEdgePolling } from './_queue-edge-sim';

const run = promisify(execFile);
const WAITING = 10_000;
const CAPACITY = 100;

/** redis-benchmark replaces __rand_int__ with a 12-digit zero-padded number. */
const customerId = (i: number) => `c${String(i).padStart(12, '0')}`;

function option(args: string[], name: string, fallback: number): number {
  const found = args.find((a) => a.startsWith(`--${name}=`));
  return found ? Number(found.split('=')[1]) : fallback;
}

async function perSecond(count: number, concurrency: number, op: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await op(next++);
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

async function redisBenchmark(url: URL, requests: number, pipeline: number, argv: string[]): Promise<number> {
  const { stdout } = await run(
    'redis-benchmark',
    [
      '-h',
      url.hostname,
      '-p',
      url.port || '6379',
      '-n',
      String(requests),
      '-c',
      '50',
      '-P',
      String(pipeline),
      '-q',
      ...argv,
    ],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  const match = /([\d.]+) requests per second/.exec(stdout.split('\r').pop() ?? stdout);
  if (!match) throw new Error(`could not read redis-benchmark output: ${stdout.slice(-200)}`);
  return Number(match[1]);
}

async function commandStats(client: Redis): Promise<Map<string, number>> {
  const info = await client.info('commandstats');
  const calls = new Map<string, number>();
  for (const [, name, count] of info.matchAll(/cmdstat_([a-z|]+):calls=(\d+)/g)) calls.set(name!, Number(count));
  return calls;
}

async function deletePrefix(client: Redis, prefix: string) {
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await client.unlink(...keys);
  } while (cursor !== '0');
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

const STEP_LINE = 10_000;
const ADMIT_BATCH = 100;
const STEP_ROUNDS = 6;

/**
 * Admission steps per second over a line of STEP_LINE fresh buyers, ADMIT_BATCH offered a step,
 * until the line is empty: one round, journal on or off (cfg fairnessJournal, room.lua journal).
 */
async function admissionSteps(
  engine: ReturnType<typeof createRoomEngine>,
  admin: Redis,
  keys: ReturnType<typeof createKeyBuilder>,
  room: string,
  journal: boolean,
  concurrency: number,
): Promise<number> {
  await engine.configure(room, {
    state: 'open',
    capacity: 1_000_000,
    admitPerMinute: 1_000_000,
    admitBurst: ADMIT_BATCH,
    tickGapMs: 60_000,
  });
  if (!journal) await admin.hset(keys.forShowtime(room).cfg, 'fairnessJournal', '0');
  await perSecond(STEP_LINE, concurrency, (i) => engine.join(room, customerId(i)));
  await admin.del(keys.forShowtime(room).journal);
  let steps = 0;
  const started = performance.now();
  for (;;) {
    const ticked = await engine.tick(room);
    steps++;
    if (!ticked.ok || ticked.offered === 0) break;
    // The bucket refills at the rate: let the next step find a full batch.
    await admin.hset(keys.forShowtime(room).room[ROOM_KEY_NAMES.indexOf('stats')]!, 'bucketTokens', ADMIT_BATCH);
  }
  return steps / ((performance.now() - started) / 1000);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export default async function queueBench(args: string[]): Promise<void> {
  const polls = option(args, 'polls', 50_000);
  const concurrency = option(args, 'concurrency', 64);
  const url = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const prefix = `bench:queue:${randomBytes(4).toString('hex')}:`;
  const client = new Redis(url.toString());
  const admin = new Redis(url.toString());
  let networkCalls = 0;
  const base = createIoredisStore(client);
  const store: ScriptStore = {
    evalsha: (...a) => (networkCalls++, base.evalsha(...a)),
    eval: (...a) => (networkCalls++, base.eval(...a)),
    scriptLoad: (s) => (networkCalls++, base.scriptLoad(s)),
  };
  const engine = createRoomEngine({ store, keyPrefix: prefix });
  const keys = createKeyBuilder(prefix);
  try {
    const settings = { state: 'open', capacity: CAPACITY, admitPerMinute: 600, tickGapMs: 1_000 } as const;
    await engine.configure('bench', settings);
    await engine.configure('rbjoin', settings);
    await engine.configure('enter', settings);
    await engine.configure('rbenter', settings);
    for (const script of [scripts.join, scripts.enter, scripts.poll]) await admin.script('LOAD', script.source);

    // Warm-up (JIT, connection) on a room of its own, so the first measurement is not penalised.
    await engine.configure('warmup', settings);
    await perSecond(5_000, concurrency, (i) => engine.join('warmup', customerId(i)));
    await perSecond(5_000, concurrency, (i) => engine.poll('warmup', customerId(i)));

    const joinsPerSec = await perSecond(WAITING + CAPACITY, concurrency, (i) => engine.join('bench', customerId(i)));
    // The join the edge runs when it holds a fresh snapshot: the place only (lua/enter-11.lua).
    const entersPerSec = await perSecond(WAITING + CAPACITY, concurrency, (i) => engine.enter('enter', customerId(i)));
    await engine.tick('bench');
    const stats = await engine.stats('bench');
    const waiting = stats.ok ? stats.waiting : -1;
    const pollsPerSec = await perSecond(polls, concurrency, () =>
      engine.poll('bench', customerId(Math.floor(Math.random() * (WAITING + CAPACITY)))),
    );

    const pollArgv = [
      'EVALSHA',
      scripts.poll.sha1,
      String(scripts.poll.numberOfKeys),
      ...keys.forShowtime('bench').room,
      'c__rand_int__',
      '-r',
      String(WAITING + CAPACITY),
    ];
    const joinArgv = [
      'EVALSHA',
      scripts.join.sha1,
      String(scripts.join.numberOfKeys),
      ...keys.forShowtime('rbjoin').joining(''),
      'c__rand_int__',
      '-r',
      '1000000000',
    ];
    const enterArgv = [
      'EVALSHA',
      scripts.enter.sha1,
      String(scripts.enter.numberOfKeys),
      ...keys.forShowtime('rbenter').joining(''),
      'c__rand_int__',
      '-r',
      '1000000000',
    ];
    // -r must come before the command in redis-benchmark's argv.
    const reorder = (argv: string[]) => [...argv.slice(-2), ...argv.slice(0, -2)];
    const rbPoll1 = await redisBenchmark(url, polls, 1, reorder(pollArgv));
    const rbPoll16 = await redisBenchmark(url, polls, 16, reorder(pollArgv));
    const rbJoin1 = await redisBenchmark(url, 20_000, 1, reorder(joinArgv));
    const rbJoin16 = await redisBenchmark(url, 20_000, 16, reorder(joinArgv));
    const rbEnter1 = await redisBenchmark(url, 20_000, 1, reorder(enterArgv));
    const rbEnter16 = await redisBenchmark(url, 20_000, 16, reorder(enterArgv));

    // Commands per poll that reaches Redis, in a quiet moment (the shared server may see others).
    const sample = 2_000;
    const before = await commandStats(admin);
    networkCalls = 0;
    for (let i = 0; i < sample; i++)
      await engine.poll('bench', customerId(CAPACITY + Math.floor(Math.random() * WAITING)));
    const after = await commandStats(admin);
    const delta = (name: string) => (after.get(name) ?? 0) - (before.get(name) ?? 0);
    const serverSide = [...after.keys()]
      .filter((n) => n !== 'evalsha' && n !== 'info')
      .reduce((sum, n) => sum + delta(n), 0);
    const snapshot = await engine.snapshot('bench');
    const sim = snapshot.ok ? simulateEdgePolling(snapshot.snapshot, WAITING) : null;

    console.log(
      `room: ${fmt(waiting)} waiting, capacity ${CAPACITY}, ${concurrency} concurrent callers on one ioredis connection`,
    );
    console.log('');
    console.log(
      '                         ioredis adapter   redis-benchmark -P 1   redis-benchmark -P 16   ratio to -P 16',
    );
    const row = (name: string, ours: number, p1: number, p16: number) =>
      console.log(
        `${name.padEnd(25)}${fmt(ours).padStart(15)}${fmt(p1).padStart(23)}${fmt(p16).padStart(24)}${(ours / p16).toFixed(2).padStart(17)}`,
      );
    row('joins/s', joinsPerSec, rbJoin1, rbJoin16);
    row('joins/s, place only', entersPerSec, rbEnter1, rbEnter16);
    row('polls/s', pollsPerSec, rbPoll1, rbPoll16);
    console.log(`target: ratio >= 0.50 of pipelined redis-benchmark`);
    console.log('');
    console.log(`Redis commands per poll that reaches Redis: ${(networkCalls / sample).toFixed(2)} sent (EVALSHA),`);
    console.log(
      `  ${(serverSide / sample).toFixed(1)} executed inside the script (commandstats delta, ${fmt(delta('evalsha'))} EVALSHA seen)`,
    );
    if (sim) {
      console.log(
        `Edge snapshot scheme, ${fmt(WAITING)} waiting, ${sim.durationMs / 1000} s simulated, ${sim.edgeInstances} edge instances ` +
          `refreshing a snapshot every ${sim.snapshotTtlMs} ms:`,
      );
      console.log(
        `  ${fmt(sim.polls)} polls, ${fmt(sim.redisPolls)} reached Redis, ${fmt(sim.snapshotReads)} snapshot reads -> ` +
          `${sim.commandsPerPoll.toFixed(3)} Redis commands per poll (target <= 0.2)`,
      );
    }

    // The admission step with the fairness journal on and off, alternated so drift hits both.
    const on: number[] = [];
    const off: number[] = [];
    for (let round = 0; round < STEP_ROUNDS; round++) {
      on.push(await admissionSteps(engine, admin, keys, `step-on-${round}`, true, concurrency));
      off.push(await admissionSteps(engine, admin, keys, `step-off-${round}`, false, concurrency));
    }
    const [stepsOn, stepsOff] = [median(on), median(off)];
    console.log('');
    console.log(
      `admission step (tick offering ${ADMIT_BATCH} a step over ${fmt(STEP_LINE)} waiting, median of ${STEP_ROUNDS} rounds):`,
    );
    console.log(
      `  fairness journal on   ${fmt(stepsOn).padStart(8)} steps/s  (${fmt(stepsOn * ADMIT_BATCH)} admissions/s)`,
    );
    console.log(
      `  fairness journal off  ${fmt(stepsOff).padStart(8)} steps/s  (${fmt(stepsOff * ADMIT_BATCH)} admissions/s)`,
    );
    console.log(`  ratio on/off ${(stepsOn / stepsOff).toFixed(2)} (goal >= 0.90)`);
  } finally {
    await deletePrefix(admin, prefix);
    client.disconnect();
    admin.disconnect();
  }
}
