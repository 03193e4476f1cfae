/**
 * `npm run bench -- eta [scenario,...]` (a name given twice runs in two rooms, side by side):
 * how far the wait estimate a buyer is given lies from the wait that follows, on a private
 * Redis with the room ticker running, each scenario in a room of its own (capacity 10, 120
 * admissions a minute) that was open and quiet before the surge (a buyer trickling in every
 * 2.5 s for 20 s, each buying like the crowd will). Every scenario runs twice side by side:
 * through HTTP (the figure buyers get: the core on a throwaway database sets the room through
 * sale control, a real edge on a port of its own answers joins and polls; bench/_http-room.ts)
 * and on the engine directly (the estimator alone, with the edge's snapshot estimate beside it):
 *
 *   leave-at-once   120 buyers within 0.6 s, each leaving as soon as admitted (the rate governs)
 *   burst-40        leave-at-once with a burst of 40 the operator set (four times the free slots)
 *   buy-1-5-min     the same crowd, each keeping the turn 1-5 minutes, scaled 1/20 to 3-15 s so
 *                   the run takes two minutes (the capacity governs; only time is scaled)
 *   halve-rate      leave-at-once, and the operator halves the rate 20 s into the surge
 *   pause-30s       leave-at-once, and the operator pauses the room 20 s into the surge for 30 s
 *   walkaway-silent 100 buyers within 0.5 s, every second one vanishes at once (no poll, no leave)
 *   walkaway-beacon the same, but the vanishing ones send a leave (the pages' leave beacon)
 *   opening-history buy-1-5-min's crowd at the opening of a room with no quiet spell before it (no
 *                   turn of its own has ended when they join), in a cinema whose earlier sale (40
 *                   buyers over 10 s, buying the same way) is in its turn history
 *   opening-blind   the same opening in a cinema with no history: the configured rate is all it knows
 *
 * Errors are |ETA - actual| / actual, with actual floored at 2 s (a poll is at least 1 s
 * apart; nobody can tell 0.3 s from 1 s), over buyers who waited. "At join" is the ETA the join
 * answered; "half-way" is the ETA heard closest to half-way through the buyer's wait. In the
 * rate-change and pause scenarios both are judged from the change on: the first ETA heard
 * after it, and the one closest to half-way between it and the offer. The previous estimator
 * (admissions in the last minute over the time open) is computed on the same run for comparison.
 * Walk-away scenarios report how fast the buyers who stayed got in against the ideal
 * (stayers / rate), and the most admissions held at once against the capacity.
 */
import { Redis } from 'ioredis';
import {
  createIoredisStore,
  createRoomEngine,
  createRoomTicker,
  type RoomEngine,
  type ScriptStore,
} from '../queue/src/index';
import { startPrivateRedis } from '../queue/test/redis-servers';
import { createBenchDatabase } from './lib/bench-db';
import { runHttpBuyer, startBenchCore, startBenchEdge, type BenchCore, type BenchEdge } from './_http-room';
import { runBuyer, sleep, snapshotFeed, type BuyerPlan, type BuyerRecord, type Vanish } from './_room-buyers';

const CAPACITY = 10;
const ADMIT_PER_MINUTE = 120;
const QUIET_MS = 20_000;
const QUIET_EVERY_MS = 2_500;
const CHANGE_AFTER_MS = 20_000;
const FLOOR_MS = 2_000;

interface Scenario {
  name: string;
  buyers: number;
  spreadMs: number;
  turnMs: () => number;
  vanish?: (i: number) => Vanish;
  change?: (room: RoomChanges) => Promise<number>;
  /** A room opened to the crowd (no quiet spell) in a cinema of its own, with or without an earlier sale in its history. */
  opening?: 'history' | 'blind';
  /** A burst the operator set (else the room's default: five seconds of the rate). */
  admitBurst?: number;
}

/** What a scenario changes in its room mid-surge: on the engine, or through the operator API. */
interface RoomChanges {
  setRate(admitPerMinute: number): Promise<unknown>;
  setState(state: 'paused' | 'open'): Promise<unknown>;
}

const atOnce = () => 50;
const buying = () => 3_000 + Math.random() * 12_000;

const SCENARIOS: Scenario[] = [
  { name: 'leave-at-once', buyers: 120, spreadMs: 600, turnMs: atOnce },
  { name: 'burst-40', buyers: 120, spreadMs: 600, turnMs: atOnce, admitBurst: 40 },
  { name: 'buy-1-5-min', buyers: 120, spreadMs: 600, turnMs: buying },
  {
    name: 'halve-rate',
    buyers: 120,
    spreadMs: 600,
    turnMs: atOnce,
    async change(room) {
      await sleep(CHANGE_AFTER_MS);
      await room.setRate(ADMIT_PER_MINUTE / 2);
      return Date.now();
    },
  },
  {
    name: 'pause-30s',
    buyers: 120,
    spreadMs: 600,
    turnMs: atOnce,
    async change(room) {
      await sleep(CHANGE_AFTER_MS);
      await room.setState('paused');
      await sleep(30_000);
      await room.setState('open');
      return Date.now();
    },
  },
  {
    name: 'walkaway-silent',
    buyers: 100,
    spreadMs: 500,
    turnMs: atOnce,
    vanish: (i) => (i % 2 === 1 ? 'silent' : 'stay'),
  },
  {
    name: 'walkaway-beacon',
    buyers: 100,
    spreadMs: 500,
    turnMs: atOnce,
    vanish: (i) => (i % 2 === 1 ? 'beacon' : 'stay'),
  },
  { name: 'opening-history', buyers: 120, spreadMs: 600, turnMs: buying, opening: 'history' },
  { name: 'opening-blind', buyers: 120, spreadMs: 600, turnMs: buying, opening: 'blind' },
];

const EARLIER_SALE_BUYERS = 40;
const EARLIER_SALE_SPREAD_MS = 10_000;

const quantile = (values: number[], q: number) => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};
const relError = (eta: number, actual: number) => Math.abs(eta - actual) / Math.max(actual, FLOOR_MS);
const pct = (x: number) => (Number.isFinite(x) ? `${Math.round(x * 100)} %` : 'n/a');

interface Errors {
  join: number[];
  half: number[];
  halfSnapshot: number[];
  joinSnapshot: number[];
  oldJoin: number[];
}

/** The errors of each buyer who waited, judged from `fromMs` on (the join, or the change). */
function errorsOf(records: BuyerRecord[], fromMs: number | null): Errors {
  const out: Errors = { join: [], half: [], halfSnapshot: [], joinSnapshot: [], oldJoin: [] };
  for (const r of records) {
    if (r.offeredAtMs === null || r.vanished) continue;
    const heard = r.heard.filter((h) => h.etaMs !== null && (fromMs === null || h.atMs >= fromMs));
    if (heard.length === 0) continue;
    const first = heard[0]!;
    if (fromMs === null && first.atMs !== r.joinedAtMs) continue; // offered at join: told no wait
    out.join.push(relError(first.etaMs!, r.offeredAtMs - first.atMs));
    if (fromMs === null && first.snapshotEtaMs !== null)
      out.joinSnapshot.push(relError(first.snapshotEtaMs, r.offeredAtMs - first.atMs));
    if (first.oldEtaMs !== null) out.oldJoin.push(relError(first.oldEtaMs, r.offeredAtMs - first.atMs));
    const midMs = (first.atMs + r.offeredAtMs) / 2;
    const half = heard.reduce((best, h) => (Math.abs(h.atMs - midMs) < Math.abs(best.atMs - midMs) ? h : best));
    if (half === first) continue; // offered before a second poll: no half-way estimate heard
    out.half.push(relError(half.etaMs!, r.offeredAtMs - half.atMs));
    if (half.snapshotEtaMs !== null) out.halfSnapshot.push(relError(half.snapshotEtaMs, r.offeredAtMs - half.atMs));
  }
  return out;
}

/**
 * A cinema of its own (key prefix, ticker) for an opening scenario, so no other scenario's
 * rooms go into its turn history; with `history`, an earlier sale of buyers like the crowd
 * has run in it and is recorded before the opening.
 */
async function openingCinema(store: ScriptStore, scenario: Scenario, index: number) {
  const engine = createRoomEngine({ store, keyPrefix: `eta-cinema-${index}:` });
  const ticker = createRoomTicker({ engine, intervalMs: 200 });
  ticker.start();
  if (scenario.opening === 'history') {
    const earlier = `eta-${index}-earlier-sale`;
    await engine.configure(earlier, { state: 'open', capacity: CAPACITY, admitPerMinute: ADMIT_PER_MINUTE });
    const snapshots = snapshotFeed(engine, earlier);
    const deadline = Date.now() + 120_000;
    await Promise.all(
      Array.from({ length: EARLIER_SALE_BUYERS }, (_, i) =>
        sleep(Math.random() * EARLIER_SALE_SPREAD_MS).then(() =>
          runBuyer(engine, earlier, { id: `e${i}`, turnMs: scenario.turnMs }, snapshots, deadline),
        ),
      ),
    );
    await snapshots.stop();
    await engine.recordTurns(earlier);
    await engine.configure(earlier, { state: 'closed' });
  }
  const priorMs = await engine.turnPrior();
  console.log(
    `  ${scenario.name}: ${priorMs === null ? 'no turn history' : `turns lasted ${(priorMs / 1000).toFixed(1)} s in the earlier sale`}`,
  );
  return { engine, stop: () => ticker.stop() };
}

async function runScenario(sharedEngine: RoomEngine, store: ScriptStore, scenario: Scenario, index: number) {
  const cinema = scenario.opening ? await openingCinema(store, scenario, index) : null;
  const engine = cinema?.engine ?? sharedEngine;
  const show = `eta-${index}-${scenario.name}`;
  await engine.configure(show, {
    state: 'open',
    capacity: CAPACITY,
    admitPerMinute: ADMIT_PER_MINUTE,
    ...(scenario.admitBurst ? { admitBurst: scenario.admitBurst } : {}),
  });
  const snapshots = snapshotFeed(engine, show);
  let maxHeld = 0;
  let watching = true;
  const watcher = (async () => {
    while (watching) {
      const s = await engine.snapshot(show);
      if (s.ok) maxHeld = Math.max(maxHeld, s.snapshot.active);
      await sleep(100);
    }
  })();
  const deadline = Date.now() + 600_000;
  const plan = (id: string, i = 0): BuyerPlan => ({
    id,
    turnMs: scenario.turnMs,
    vanish: scenario.vanish?.(i) ?? 'stay',
  });
  // The quiet spell: a few buyers trickling in, buying as the crowd will.
  const quiet: Promise<BuyerRecord>[] = [];
  for (let t = 0; !scenario.opening && t < QUIET_MS; t += QUIET_EVERY_MS) {
    quiet.push(runBuyer(engine, show, plan(`q${t}`), snapshots, deadline));
    await sleep(QUIET_EVERY_MS);
  }
  const surgeAt = Date.now();
  const crowd = Array.from({ length: scenario.buyers }, (_, i) =>
    sleep(Math.random() * scenario.spreadMs).then(() => runBuyer(engine, show, plan(`b${i}`, i), snapshots, deadline)),
  );
  const changes: RoomChanges = {
    setRate: (admitPerMinute) => engine.configure(show, { admitPerMinute }),
    setState: (state) => engine.configure(show, { state }),
  };
  const changedAt = scenario.change ? await scenario.change(changes) : null;
  const records = await Promise.all(crowd);
  await Promise.all(quiet);
  watching = false;
  await watcher;
  await snapshots.stop();
  console.log(`  ${scenario.name} done`);
  const stats = await engine.stats(show);
  await cinema?.stop();
  const skipped = stats.ok ? stats.abandoned : NaN;
  const counters = stats.ok ? `passed over unseen ${stats.parked}, of whom came back ${stats.unparked}` : '';
  const stayers = records.filter((r) => !r.vanished);
  const lastOffer = Math.max(...stayers.map((r) => r.offeredAtMs ?? Infinity));
  const firstJoin = Math.min(...records.map((r) => r.joinedAtMs));
  return {
    scenario,
    via: 'engine',
    records,
    errors: errorsOf(records, changedAt),
    surgeAt,
    lastWaitMs: lastOffer - firstJoin,
    stayers: stayers.length,
    maxHeld,
    skipped,
    counters,
    neverOffered: stayers.filter((r) => r.offeredAtMs === null).length,
  };
}

type ScenarioResult = Awaited<ReturnType<typeof runScenario>>;

/**
 * The same scenario through HTTP: the room is a showtime of the core's, set by the operator
 * API (capacity and rate only: the burst and the rest follow from sale control), buyers log
 * in, join, poll and leave on a real edge. An opening runs on an edge of its own (its own
 * cinema: turn history), after the earlier sale there when it has one.
 */
async function runHttpScenario(
  core: BenchCore,
  sharedEdge: BenchEdge,
  redisUrl: string,
  scenario: Scenario,
  index: number,
): Promise<ScenarioResult> {
  const own = scenario.opening ? await startBenchEdge(core, redisUrl, `eta-http-cinema-${index}:`) : null;
  const stack = own ?? sharedEdge;
  const room = { capacity: CAPACITY, admitPerMinute: ADMIT_PER_MINUTE };
  if (scenario.opening === 'history') {
    const earlier = await core.createShowtime(`eta-http-${index}-earlier`);
    await stack.setRoom(earlier, room);
    const deadline = Date.now() + 120_000;
    await Promise.all(
      Array.from({ length: EARLIER_SALE_BUYERS }, (_, i) =>
        sleep(Math.random() * EARLIER_SALE_SPREAD_MS).then(() =>
          runHttpBuyer(stack, earlier, { id: `e${i}`, turnMs: scenario.turnMs }, deadline),
        ),
      ),
    );
    await stack.engine.recordTurns(String(earlier));
    await stack.setRoom(earlier, { state: 'closed' });
  }
  const show = await core.createShowtime(`eta-http-${index}-${scenario.name}`);
  await stack.setRoom(show, { ...room, ...(scenario.admitBurst ? { admitBurst: scenario.admitBurst } : {}) });
  let maxHeld = 0;
  let watching = true;
  const watcher = (async () => {
    while (watching) {
      const s = await stack.engine.snapshot(String(show));
      if (s.ok) maxHeld = Math.max(maxHeld, s.snapshot.active);
      await sleep(100);
    }
  })();
  const deadline = Date.now() + 600_000;
  const plan = (id: string, i = 0): BuyerPlan => ({
    id,
    turnMs: scenario.turnMs,
    vanish: scenario.vanish?.(i) ?? 'stay',
  });
  const quiet: Promise<BuyerRecord>[] = [];
  for (let t = 0; !scenario.opening && t < QUIET_MS; t += QUIET_EVERY_MS) {
    quiet.push(runHttpBuyer(stack, show, plan(`q${t}`), deadline));
    await sleep(QUIET_EVERY_MS);
  }
  const surgeAt = Date.now();
  const crowd = Array.from({ length: scenario.buyers }, (_, i) =>
    sleep(Math.random() * scenario.spreadMs).then(() => runHttpBuyer(stack, show, plan(`b${i}`, i), deadline)),
  );
  const changes: RoomChanges = {
    setRate: (admitPerMinute) => stack.setRoom(show, { admitPerMinute }),
    setState: (state) => stack.setRoom(show, { state }),
  };
  const changedAt = scenario.change ? await scenario.change(changes) : null;
  const records = await Promise.all(crowd);
  await Promise.all(quiet);
  watching = false;
  await watcher;
  console.log(`  ${scenario.name} (HTTP) done`);
  const stats = await stack.engine.stats(String(show));
  await own?.stop();
  const stayers = records.filter((r) => !r.vanished);
  const lastOffer = Math.max(...stayers.map((r) => r.offeredAtMs ?? Infinity));
  const firstJoin = Math.min(...records.map((r) => r.joinedAtMs));
  return {
    scenario,
    via: 'HTTP',
    records,
    errors: errorsOf(records, changedAt),
    surgeAt,
    lastWaitMs: lastOffer - firstJoin,
    stayers: stayers.length,
    maxHeld,
    skipped: stats.ok ? stats.abandoned : NaN,
    counters: stats.ok ? `passed over unseen ${stats.parked}, of whom came back ${stats.unparked}` : '',
    neverOffered: stayers.filter((r) => r.offeredAtMs === null).length,
  };
}

export default async function etaBenchmark(args: string[]): Promise<void> {
  // A name given twice runs twice, each in a room of its own: a run's median is one sample of
  // the estimator where every buyer shares what the quiet spell taught it (buy-1-5-min).
  const wanted = args[0]?.split(',');
  const unknown = wanted?.filter((name) => !SCENARIOS.some((s) => s.name === name)) ?? [];
  if (unknown.length > 0) throw new Error(`unknown scenario: ${unknown.join(', ')}`);
  const scenarios = wanted ? wanted.map((name) => SCENARIOS.find((s) => s.name === name)!) : SCENARIOS;
  const redisServer = await startPrivateRedis();
  const redisUrl = `redis://127.0.0.1:${redisServer.ports[0]}`;
  const client = new Redis(redisUrl);
  const engine = createRoomEngine({ store: createIoredisStore(client) });
  const ticker = createRoomTicker({ engine, intervalMs: 200 });
  ticker.start();
  const db = await createBenchDatabase(8);
  const core = await startBenchCore(db.sql, redisUrl);
  const sharedEdge = await startBenchEdge(core, redisUrl, 'eta-http:');
  console.log(
    `capacity ${CAPACITY}, ${ADMIT_PER_MINUTE} a minute, quiet ${QUIET_MS / 1000} s before each surge but the openings'; each scenario in its own room, estimates side by side, then walk-aways, then openings`,
  );
  console.log('(a 2-core machine shared with other work: figures are indicative)\n');
  try {
    // Estimates first, then walk-aways, then openings: each group side by side, so one group's
    // thousands of polls do not starve another's buyers (a late poll is a late buyer).
    const store = createIoredisStore(client);
    const groups = [
      scenarios.filter((s) => !s.vanish && !s.opening),
      scenarios.filter((s) => s.vanish),
      scenarios.filter((s) => s.opening),
    ];
    const results: ScenarioResult[] = [];
    for (const group of groups) {
      const base = results.length;
      const both = group.flatMap((s, i) => [
        runHttpScenario(core, sharedEdge, redisUrl, s, base + i),
        runScenario(engine, store, s, base + i),
      ]);
      results.push(...(await Promise.all(both)));
    }
    console.log(
      'scenario (via)              buyers  last in   ETA error at join (median / p90)   half-way (median / p90)   edge snapshot: join / half-way   previous estimator at join',
    );
    for (const r of results) {
      const e = r.errors;
      const judged = r.scenario.change ? ' (from the change)' : '';
      console.log(
        `${`${r.scenario.name} (${r.via})`.padEnd(28)}${String(r.records.length).padStart(6)}  ${(r.lastWaitMs / 1000).toFixed(1).padStart(6)} s   ` +
          `${`${pct(quantile(e.join, 0.5))} / ${pct(quantile(e.join, 0.9))} (n=${e.join.length})`.padEnd(35)}` +
          `${`${pct(quantile(e.half, 0.5))} / ${pct(quantile(e.half, 0.9))} (n=${e.half.length})`.padEnd(26)}` +
          `${`${e.joinSnapshot.length ? `${pct(quantile(e.joinSnapshot, 0.5))} / ${pct(quantile(e.joinSnapshot, 0.9))}` : '-'}; ${pct(quantile(e.halfSnapshot, 0.5))} / ${pct(quantile(e.halfSnapshot, 0.9))}`.padEnd(33)}` +
          `${pct(quantile(e.oldJoin, 0.5))} / ${pct(quantile(e.oldJoin, 0.9))}${judged}`,
      );
    }
    for (const r of results.filter((x) => !x.scenario.vanish && x.neverOffered > 0)) {
      console.log(
        `  ${r.scenario.name} (${r.via}): ${r.neverOffered} buyers who stayed were never offered; dropped after the grace ${r.skipped}; ${r.counters}`,
      );
    }
    const walkedAway = results.filter((r) => r.scenario.vanish);
    if (walkedAway.length > 0) {
      console.log('\nwalk-aways: half the crowd vanishes; the rest against the ideal (stayers at the configured rate)');
      for (const r of walkedAway) {
        const idealMs = (r.stayers / ADMIT_PER_MINUTE) * 60_000;
        const share = idealMs / r.lastWaitMs;
        console.log(
          `  ${`${r.scenario.name} (${r.via})`.padEnd(26)} ${r.stayers} stayed, last in after ${(r.lastWaitMs / 1000).toFixed(1)} s, ideal ${(idealMs / 1000).toFixed(1)} s: ` +
            `${share.toFixed(2)} of the ideal rate (goal ${r.scenario.name.endsWith('beacon') ? '0.95' : '0.8'}); ` +
            `most admitted at once ${r.maxHeld} (cap ${CAPACITY}); never offered ${r.neverOffered}; dropped after the grace ${r.skipped}; ${r.counters}`,
        );
      }
    }
    console.log('\ngoal: median <= 25 % at join and <= 15 % half-way where the future is knowable');
  } finally {
    await sharedEdge.stop();
    await core.stop();
    await db.drop();
    await ticker.stop();
    client.disconnect();
    await redisServer.stop();
  }
}
