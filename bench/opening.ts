/**
 * `npm run bench -- opening [buyers] [--phones <share>] [--stall] [--redis-restart]`: the rehearsal of an opening
 * on the real stack, as the separate services run in production (core, payment sandbox, edge,
 * queue ticker as their own processes, on a private PostgreSQL and redis-server), everything
 * over HTTP through the edge.
 *
 * 2,000 buyers (by default) join within a second around the opening (the first half into the
 * pre-queue and the draw, the rest straight into the line), poll at the page's cadence, and
 * once admitted go for two seats together near the centre, hold, check out and pay at the
 * sandbox. Half of them (`--phones`, 0.5) are on phones, where the page offers "Best 2 seats"
 * first, and let the core choose; the others pick on the map. `--stall` holds `LOCK TABLE show_seat` for 10 s mid-sale; `--redis-restart` kills
 * redis-server (no persistence: it comes back empty) mid-sale and starts it again.
 *
 * Reported: 5xx answers to admitted buyers (goal 0 without faults), the median error of the
 * wait told at join and half-way (goals 25 % and 15 %), time from admission to a hold
 * (p50/p95, for everyone and for each way of choosing, with conflicts per hold) against an idle
 * hold's round trip measured in the same run (the floor), admission
 * order inversions (a buyer still told "waiting" after someone with a later ticket was let in;
 * goal 0), seats sold, and the operator's room view polled every 500 ms (a gap: no 200 within
 * 500 ms). Ends with one line:
 * `rehearsal: admitted-5xx <n> join-error <p>% halfway-error <p>% inversions <n> view-gaps <n>`.
 */
import postgres from 'postgres';
import { rectangularLayout } from '../core/src/demo/seat-layout';
import { freePort } from '../queue/test/redis-servers';
import { answers200, serviceProcess } from '../chaos/processes';
import { startChaosStack, type ChaosStack } from '../chaos/stack';
import { newBuyer, runOpeningBuyer, sleep, type BuyerContext, type OpeningBuyer } from './_opening-buyer';
import { inversions, median, pct, percentile, waitErrors } from './_opening-judge';

const ROWS = 16;
const COLUMNS = 20;
const STALL_MS = 10_000;

interface Rehearsal {
  stack: ChaosStack;
  edgeUrl: string;
  showtimeId: number;
  admin: Record<string, string>;
}

async function prepare(stack: ChaosStack, opensAtMs: number): Promise<Rehearsal> {
  // The buyers' edge: the stack's own settings, proof of work out of the way (its cost is
  // `bench pow`'s subject; here every buyer would spend CPU of this same machine on it).
  await stack.edge.stop();
  const port = await freePort();
  const edgeUrl = `http://127.0.0.1:${port}`;
  const edge = serviceProcess({
    name: 'edge-rehearsal',
    entry: 'edge/src/main.ts',
    logDir: stack.logDir,
    env: {
      ...stack.edgeEnv,
      EDGE_PORT: String(port),
      POW_SHOWTIME_JOINS_PER_SECOND: '1000000',
      POW_ADDRESS_JOINS_PER_MINUTE: '1000000',
    },
    ready: () => answers200(`${edgeUrl}/healthz`),
  });
  await edge.start();
  // close() stops the services it started; this one is stopped by the rehearsal itself.
  stack.edge = edge;
  const admin = {
    authorization: `Bearer ${stack.adminToken}`,
    'x-service-token': stack.serviceToken,
    'content-type': 'application/json',
  };
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${stack.coreUrl}${path}`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as { id: number };
  };
  const venue = await post('/admin/venues', { name: 'Rehearsal cinema' });
  const seats = rectangularLayout({ rows: ROWS, columns: COLUMNS }).map(({ code, rowLabel, row, column, type }) => ({
    code,
    rowLabel,
    row,
    column,
    type,
  }));
  const hall = await post(`/admin/venues/${venue.id}/halls`, { name: 'Screen 1', seats });
  const showtime = await post('/admin/showtimes', {
    hallId: hall.id,
    title: 'Opening night',
    startsAt: new Date(Date.now() + 86_400_000).toISOString(),
    priceCents: 1200,
    opensAt: new Date(opensAtMs).toISOString(),
  });
  const room = await fetch(`${edgeUrl}/api/admin/showtimes/${showtime.id}/room`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${stack.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ capacity: 40, admitPerMinute: 300, sessionTtlSeconds: 120, placesPerAddress: 5 }),
  });
  if (!room.ok) throw new Error(`room: ${room.status} ${await room.text()}`);
  return { stack, edgeUrl, showtimeId: showtime.id, admin: { authorization: `Bearer ${stack.adminToken}` } };
}

/** An idle hold and its release through the edge, ten times: the floor for a time to a hold. */
async function idleHoldMs(r: Rehearsal): Promise<number> {
  // A showtime of its own, open now, one buyer.
  const headers = { ...r.admin, 'x-service-token': r.stack.serviceToken, 'content-type': 'application/json' };
  const post = async (path: string, body: unknown) =>
    (await (
      await fetch(`${r.stack.coreUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body) })
    ).json()) as { id: number };
  const venue = await post('/admin/venues', { name: 'Floor' });
  const hall = await post(`/admin/venues/${venue.id}/halls`, {
    name: 'Floor',
    seats: rectangularLayout({ rows: 2, columns: 4 }).map(({ code, rowLabel, row, column, type }) => ({
      code,
      rowLabel,
      row,
      column,
      type,
    })),
  });
  const showtime = await post('/admin/showtimes', {
    hallId: hall.id,
    title: 'Floor',
    startsAt: new Date(Date.now() + 86_400_000).toISOString(),
    priceCents: 100,
  });
  await fetch(`${r.edgeUrl}/api/admin/showtimes/${showtime.id}/room`, {
    method: 'PUT',
    headers: { ...r.admin, 'content-type': 'application/json' },
    body: JSON.stringify({ capacity: 5, state: 'open' }),
  });
  const xff = { 'x-forwarded-for': '192.0.2.1' };
  const login = (await (
    await fetch(`${r.edgeUrl}/api/auth/demo`, {
      method: 'POST',
      headers: { ...xff, 'content-type': 'application/json' },
      body: '{}',
    })
  ).json()) as { token: string };
  let access: string | null = null;
  for (let i = 0; i < 50 && !access; i++) {
    const joined = (await (
      await fetch(`${r.edgeUrl}/api/showtimes/${showtime.id}/queue`, {
        method: 'POST',
        headers: { ...xff, authorization: `Bearer ${login.token}` },
      })
    ).json()) as { accessToken?: string };
    access = joined.accessToken ?? null;
    if (!access) await sleep(100);
  }
  const times: number[] = [];
  for (let i = 0; i < 10; i++) {
    const started = performance.now();
    const held = await fetch(`${r.edgeUrl}/api/showtimes/${showtime.id}/holds`, {
      method: 'POST',
      headers: { ...xff, authorization: `Bearer ${access}`, 'content-type': 'application/json' },
      body: JSON.stringify({ seats: ['A1', 'A2'] }),
    });
    times.push(performance.now() - started);
    const { holdId } = (await held.json()) as { holdId: string };
    await fetch(`${r.edgeUrl}/api/holds/${holdId}`, {
      method: 'DELETE',
      headers: { ...xff, authorization: `Bearer ${access}` },
    });
    await sleep(300); // the customer bucket refills 10 a minute
  }
  return median(times) ?? 0;
}

/** Polls the operator's room view every 500 ms until stopped; counts polls with no 200 within 500 ms. */
function watchOperatorView(r: Rehearsal) {
  let gaps = 0;
  let polls = 0;
  let running = true;
  const done = (async () => {
    while (running) {
      const started = Date.now();
      polls++;
      const ok = await fetch(`${r.edgeUrl}/api/admin/showtimes/${r.showtimeId}/room`, {
        headers: r.admin,
        signal: AbortSignal.timeout(500),
      })
        .then(async (response) => (await response.arrayBuffer(), response.status === 200))
        .catch(() => false);
      if (!ok) gaps++;
      await sleep(Math.max(0, 500 - (Date.now() - started)));
    }
  })();
  return { stop: async () => ((running = false), await done, { gaps, polls }) };
}

/** Holds LOCK TABLE show_seat for STALL_MS in a session of its own. */
async function stallCore(databaseUrl: string): Promise<void> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    await sql.begin(async (tx) => {
      await tx`LOCK TABLE show_seat IN ACCESS EXCLUSIVE MODE`;
      await sleep(STALL_MS);
    });
  } finally {
    await sql.end();
  }
}

async function ticketsOf(r: Rehearsal, buyers: OpeningBuyer[]): Promise<Map<number, number>> {
  const tickets = new Map<number, number>();
  for (const buyer of buyers) {
    if (!buyer.queueId) continue;
    const response = await fetch(
      `${r.edgeUrl}/api/admin/showtimes/${r.showtimeId}/room/queue-ids/${encodeURIComponent(buyer.queueId)}`,
      { headers: r.admin },
    );
    if (response.ok) tickets.set(buyer.id, ((await response.json()) as { ticket: number }).ticket);
  }
  return tickets;
}

export default async function opening(args: string[]): Promise<void> {
  const count = Number(args.find((a, i) => /^\d+$/.test(a) && args[i - 1] !== '--phones') ?? 2_000);
  const withStall = args.includes('--stall');
  const withRedisRestart = args.includes('--redis-restart');
  const phonesAt = args.indexOf('--phones');
  const phones = phonesAt >= 0 ? Number(args[phonesAt + 1]) : 0.5;
  if (!(phones >= 0 && phones <= 1)) throw new Error('opening: --phones takes a share between 0 and 1');
  const stack = await startChaosStack({ logLevel: 'warn' });
  try {
    const leadMs = 8_000 + count * 3; // time for every buyer to log in before the opening
    const opensAtMs = Date.now() + leadMs;
    const r = await prepare(stack, opensAtMs);
    const floorMs = await idleHoldMs(r);
    console.log(
      `stack: separate processes (core, sandbox, edge, ticker) on private PostgreSQL and Redis; ${ROWS * COLUMNS} seats, capacity 40, 300 admissions/min`,
    );
    console.log(
      `buyers: ${count} (${Math.round(phones * 100)} % on phones, "Best 2 seats"), joining from 0.5 s before to 0.5 s after the opening${withStall ? '; core stalled 10 s mid-sale' : ''}${withRedisRestart ? '; Redis restarted empty mid-sale' : ''}`,
    );

    const context: BuyerContext = {
      edgeUrl: r.edgeUrl,
      paymentsUrl: stack.paymentsUrl,
      paymentApiKey: stack.paymentApiKey,
      showtimeId: r.showtimeId,
      deadlineMs: opensAtMs + 150_000,
      rows: ROWS,
      columns: COLUMNS,
    };
    // Every n-th buyer on a phone, spread evenly over the crowd (and so over the draw and the line).
    const buyers = Array.from({ length: count }, (_, i) =>
      newBuyer(i + 1, Math.floor((i + 1) * phones) > Math.floor(i * phones) ? 'best' : 'map'),
    );
    const view = watchOperatorView(r);
    const runs = buyers.map((buyer, i) => runOpeningBuyer(context, buyer, opensAtMs - 500 + (1_000 * i) / count));
    const faults: Promise<void>[] = [];
    if (withStall) faults.push(sleep(opensAtMs + 15_000 - Date.now()).then(() => stallCore(stack.databaseUrl)));
    if (withRedisRestart) {
      faults.push(
        sleep(opensAtMs + 20_000 - Date.now()).then(async () => {
          await stack.redis.kill();
          await sleep(1_000);
          await stack.redis.start();
        }),
      );
    }
    await Promise.all([...runs, ...faults]);
    const seen = await view.stop();

    const sql = postgres(stack.databaseUrl, { max: 1, onnotice: () => {} });
    const [sold] = await sql<
      { n: number }[]
    >`SELECT count(*)::int AS n FROM show_seat WHERE showtime_id = ${r.showtimeId} AND status = 'BOOKED'`;
    await sql.end();

    const admitted5xx = buyers.flatMap((b) => b.admitted5xx);
    const waiting5xx = buyers.flatMap((b) => b.waiting5xx);
    const { join, half } = waitErrors(buyers);
    const held = buyers.filter((b) => b.heldAtMs !== null).map((b) => b.heldAtMs! - b.admittedAtMs!);
    const tickets = await ticketsOf(r, buyers);
    const { inverted, passedOver } = inversions(buyers, tickets);
    const outcomes: Record<string, number> = {};
    for (const b of buyers) outcomes[b.outcome] = (outcomes[b.outcome] ?? 0) + 1;
    const byCode = (codes: string[]) =>
      Object.entries(codes.reduce<Record<string, number>>((acc, c) => ((acc[c] = (acc[c] ?? 0) + 1), acc), {}))
        .map(([c, n]) => `${n} × ${c}`)
        .join(', ') || 'none';

    console.log(
      `outcomes: ${Object.entries(outcomes)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}; seats sold ${sold?.n ?? 0} of ${ROWS * COLUMNS}`,
    );
    console.log(
      `admitted buyers: ${buyers.filter((b) => b.admittedAtMs !== null).length}; their 5xx: ${byCode(admitted5xx)}; 5xx while waiting: ${byCode(waiting5xx)}; told to join again (410): ${buyers.filter((b) => b.rejoins > 0).length} buyers`,
    );
    console.log(
      `wait told at join: median error ${pct(median(join))} % (p90 ${pct(percentile(join, 0.9))} %, ${join.length} buyers); half-way: ${pct(median(half))} % (p90 ${pct(percentile(half, 0.9))} %) — goals 25 % / 15 %`,
    );
    const p50 = median(held);
    console.log(
      `time from admission to a hold: p50 ${p50 === null ? 'n/a' : Math.round(p50)} ms, p95 ${held.length ? Math.round(percentile(held, 0.95)!) : 'n/a'} ms (includes the buyer's 0.8 s at the map); an idle hold's round trip here ${Math.round(floorMs)} ms; conflicts per hold ${(buyers.reduce((s, b) => s + b.conflicts, 0) / Math.max(1, held.length)).toFixed(2)}`,
    );
    for (const choice of ['map', 'best'] as const) {
      const these = buyers.filter((b) => b.choice === choice);
      if (these.length === 0) continue;
      const times = these.filter((b) => b.heldAtMs !== null).map((b) => b.heldAtMs! - b.admittedAtMs!);
      const conflicts = these.reduce((s, b) => s + b.conflicts, 0);
      console.log(
        `  ${choice === 'map' ? 'on the map (laptops)' : 'best 2 seats (phones)'}: ${times.length} holds of ${these.filter((b) => b.admittedAtMs !== null).length} admitted, p50 ${times.length ? Math.round(median(times)!) : 'n/a'} ms, p95 ${times.length ? Math.round(percentile(times, 0.95)!) : 'n/a'} ms, conflicts per hold ${(conflicts / Math.max(1, times.length)).toFixed(2)}`,
      );
    }
    console.log(
      `admission order: ${inverted} inversions among ${tickets.size} buyers with a ticket (goal 0); ${passedOver} passed over while not polling (parked as walk-aways, by design)`,
    );
    console.log(
      `operator view: ${seen.gaps} of ${seen.polls} polls unanswered within 500 ms (${(seen.gaps * 0.5).toFixed(1)} s)`,
    );
    if (process.env.REHEARSAL_DEBUG) {
      const perTen = new Map<number, number>();
      for (const b of buyers)
        if (b.admittedAtMs !== null)
          perTen.set(
            Math.floor((b.admittedAtMs - opensAtMs) / 10_000),
            (perTen.get(Math.floor((b.admittedAtMs - opensAtMs) / 10_000)) ?? 0) + 1,
          );
      console.log(
        'admissions per 10 s from the opening:',
        [...perTen.entries()]
          .sort((a, b) => a[0] - b[0])
          .map(([k, v]) => `${k * 10}s:${v}`)
          .join(' '),
      );
      const room = (await (
        await fetch(`${r.edgeUrl}/api/admin/showtimes/${r.showtimeId}/room`, { headers: r.admin })
      ).json()) as { stats: unknown; admission: unknown };
      console.log('room at the end:', JSON.stringify(room.stats), JSON.stringify(room.admission));
      const edgeMetrics = await (await fetch(`${r.edgeUrl}/metrics`, { headers: r.admin })).text();
      console.log(
        'edge:',
        edgeMetrics
          .split('\n')
          .filter((line) => /^edge_(core_errors|shed_requests)_total/.test(line))
          .join('; ') || '(no core errors, nothing shed)',
      );
      for (const b of buyers.filter((x) => x.outcome === 'timed_out').slice(0, 3))
        console.log(`timed out: buyer ${b.id} ticket ${tickets.get(b.id)}`, JSON.stringify(b.told.slice(-6)));
    }
    console.log(
      `rehearsal: admitted-5xx ${admitted5xx.length} join-error ${pct(median(join))}% halfway-error ${pct(median(half))}% inversions ${inverted} view-gaps ${seen.gaps}`,
    );
  } finally {
    await stack.edge.stop().catch(() => {});
    await stack.close();
  }
}
