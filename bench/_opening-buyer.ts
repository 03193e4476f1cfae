/**
 * One buyer of the opening rehearsal (bench/opening.ts), over HTTP through the edge as the
 * sale page does it: demo login, join at a given moment, poll when told to (the page's
 * cadence: pollAfterMs with ±20 % jitter, at most 30 s), and once admitted go for two seats
 * together near the centre (one when no two together are left), hold, check out and pay at
 * the payment sandbox. On a laptop the buyer picks on the map: a 409 reloads the map and tries
 * again (as the page does). On a phone the page offers "Best 2 seats" first: the buyer asks the
 * core to choose (`{count: 2, together: true}`), and for one seat when no two sit together any
 * more. A buyer with no seats after a few tries gives the turn back. Everything it was told,
 * and when, is recorded for the report.
 * (Underscore prefix: not a benchmark of its own.)
 */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface Told {
  atMs: number;
  state: string;
  position: number | null;
  etaMs: number | null;
}

export interface OpeningBuyer {
  id: number;
  told: Told[];
  /** When the buyer first heard `admitted`. */
  admittedAtMs: number | null;
  queueId: string | null;
  /** The last moment the buyer was told it was still waiting. */
  lastWaitingAtMs: number | null;
  heldAtMs: number | null;
  paid: boolean;
  conflicts: number;
  /** 5xx answers this buyer got once admitted, by code. */
  admitted5xx: string[];
  /** 5xx answers before admission (join and poll), by code. */
  waiting5xx: string[];
  /** Times the buyer was told its place had lapsed (410) and joined again, as the page offers. */
  rejoins: number;
  /** How the buyer chooses seats: on the map (a laptop) or "Best 2 seats" (a phone's default). */
  choice: 'map' | 'best';
  outcome: 'bought' | 'no_seats' | 'sold_out' | 'closed' | 'gave_up' | 'timed_out' | 'waiting';
}

export interface BuyerContext {
  edgeUrl: string;
  paymentsUrl: string;
  paymentApiKey: string;
  showtimeId: number;
  /** Stop polling after this moment (ms since the epoch). */
  deadlineMs: number;
  /** Seats of the hall, for the centre: rows and columns. */
  rows: number;
  columns: number;
}

interface Answer {
  status: number;
  json: any;
  retryAfterMs: number | null;
}

async function call(url: string, init: RequestInit & { timeoutMs?: number } = {}): Promise<Answer> {
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(init.timeoutMs ?? 15_000) });
    const text = await response.text();
    let json: any = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    const retryAfter = Number(response.headers.get('retry-after'));
    return {
      status: response.status,
      json,
      retryAfterMs: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : null,
    };
  } catch {
    // No answer at all (reset, timeout): counted as a 5xx, as a buyer would see an error page.
    return { status: 599, json: null, retryAfterMs: null };
  }
}

const jitter = (ms: number) => ms * (0.8 + Math.random() * 0.4);

/** Two adjacent available seats in one row, the pair nearest the centre (with a little taste of its own); one seat when no pair is left. */
export function pickPair(
  seats: { code: string; row: number; column: number; status: string }[],
  rows: number,
  columns: number,
  taste: number,
): string[] | null {
  const free = new Map<string, string>();
  for (const seat of seats) if (seat.status === 'AVAILABLE') free.set(`${seat.row}/${seat.column}`, seat.code);
  const centreRow = rows * 0.6;
  const centreColumn = (columns + 1) / 2;
  let best: { codes: string[]; score: number } | null = null;
  for (const seat of seats) {
    if (seat.status !== 'AVAILABLE') continue;
    const right = free.get(`${seat.row}/${seat.column + 1}`);
    if (!right) continue;
    const score =
      Math.abs(seat.row - centreRow) * 1.5 + Math.abs(seat.column + 0.5 - centreColumn) + taste * Math.random();
    if (!best || score < best.score) best = { codes: [seat.code, right], score };
  }
  if (best) return best.codes;
  // No two together left: one seat, as a buyer would rather than go home with nothing.
  for (const seat of seats) {
    if (seat.status !== 'AVAILABLE') continue;
    const score = Math.abs(seat.row - centreRow) * 1.5 + Math.abs(seat.column - centreColumn) + taste * Math.random();
    if (!best || score < best.score) best = { codes: [seat.code], score };
  }
  return best?.codes ?? null;
}

export function newBuyer(id: number, choice: OpeningBuyer['choice'] = 'map'): OpeningBuyer {
  return {
    id,
    choice,
    told: [],
    admittedAtMs: null,
    queueId: null,
    lastWaitingAtMs: null,
    heldAtMs: null,
    paid: false,
    conflicts: 0,
    admitted5xx: [],
    waiting5xx: [],
    rejoins: 0,
    outcome: 'waiting',
  };
}

/** Logs in, waits for `joinAtMs`, then joins, waits its turn and buys. */
export async function runOpeningBuyer(context: BuyerContext, buyer: OpeningBuyer, joinAtMs: number): Promise<void> {
  // A distinct client address per buyer (the rehearsal's edge trusts one proxy hop), as a crowd on phones.
  const address = `10.${(buyer.id >> 16) & 255}.${(buyer.id >> 8) & 255}.${buyer.id & 255}`;
  const base = { 'x-forwarded-for': address };
  const json = { ...base, 'content-type': 'application/json' };
  const login = await call(`${context.edgeUrl}/api/auth/demo`, { method: 'POST', headers: json, body: '{}' });
  if (login.status !== 200) {
    buyer.outcome = 'gave_up';
    return;
  }
  const customer = login.json.token as string;
  await sleep(Math.max(0, joinAtMs - Date.now()));

  const queuePath = `${context.edgeUrl}/api/showtimes/${context.showtimeId}/queue`;
  let queueToken: string | null = null;
  let accessToken: string | null = null;
  let answer = await call(queuePath, { method: 'POST', headers: { ...base, authorization: `Bearer ${customer}` } });
  for (;;) {
    const now = Date.now();
    if (answer.status >= 500) buyer.waiting5xx.push(`${answer.status} ${answer.json?.error?.code ?? ''}`.trim());
    if (answer.status === 200) {
      const body = answer.json;
      queueToken = body.queueToken ?? queueToken;
      buyer.queueId = body.queueId ?? buyer.queueId;
      buyer.told.push({
        atMs: now,
        state: body.state,
        position: body.position ?? null,
        etaMs: typeof body.etaSeconds === 'number' ? body.etaSeconds * 1000 : null,
      });
      if (body.state === 'admitted') {
        buyer.admittedAtMs = now;
        accessToken = body.accessToken;
        break;
      }
      if (body.state === 'sold_out' || body.state === 'closed') {
        buyer.outcome = body.state;
        return;
      }
      buyer.lastWaitingAtMs = now;
    }
    if (Date.now() > context.deadlineMs) {
      buyer.outcome = 'timed_out';
      return;
    }
    if (answer.status === 410) {
      // "Your place has lapsed: join again" (after a Redis loss, or passed over): the page
      // offers to join again, and a buyer who wants a ticket does, a few seconds later.
      buyer.rejoins++;
      queueToken = null;
      // The waits told are judged from the latest join: the lapsed place's estimates were for it.
      buyer.told = [];
      buyer.lastWaitingAtMs = null;
      await sleep(jitter(3_000));
      answer = await call(queuePath, { method: 'POST', headers: { ...base, authorization: `Bearer ${customer}` } });
      continue;
    }
    const waitMs =
      answer.status === 200
        ? Math.min(30_000, answer.json.pollAfterMs ?? 2_000)
        : Math.min(30_000, answer.retryAfterMs ?? 2_000);
    await sleep(jitter(waitMs));
    answer = queueToken
      ? await call(queuePath, { headers: { ...base, 'x-queue-token': queueToken } })
      : await call(queuePath, { method: 'POST', headers: { ...base, authorization: `Bearer ${customer}` } });
  }
  await buy(context, buyer, accessToken as string, customer, base);
}

async function buy(
  context: BuyerContext,
  buyer: OpeningBuyer,
  accessToken: string,
  customer: string,
  base: Record<string, string>,
): Promise<void> {
  const auth = { ...base, authorization: `Bearer ${accessToken}` };
  const note = (answer: Answer) => {
    if (answer.status >= 500) buyer.admitted5xx.push(`${answer.status} ${answer.json?.error?.code ?? ''}`.trim());
  };
  const taste = 2 + Math.random() * 6;
  let bestCount = 2;
  let hold: { holdId: string } | null = null;
  for (let attempt = 0; attempt < 6 && !hold; attempt++) {
    await sleep(jitter(attempt === 0 ? 800 : 400)); // looking at the map
    const map = await call(`${context.edgeUrl}/api/showtimes/${context.showtimeId}/seats`, { headers: auth });
    note(map);
    if (map.status !== 200) {
      await sleep(map.retryAfterMs ?? 1_000);
      continue;
    }
    let body: object;
    if (buyer.choice === 'best') {
      body = { count: bestCount, together: true };
    } else {
      const pair = pickPair(map.json.seats, context.rows, context.columns, taste);
      if (!pair) {
        buyer.outcome = 'no_seats';
        break;
      }
      body = { seats: pair };
    }
    const held = await call(`${context.edgeUrl}/api/showtimes/${context.showtimeId}/holds`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    note(held);
    if (held.status === 201) hold = held.json;
    else if (held.status === 409 && held.json?.error?.code === 'NO_SEATS_TOGETHER') {
      // The page says how many still sit together; the buyer settles for that many, or none.
      const together = Number(held.json.error.maxTogether ?? 0);
      if (together < 1) {
        buyer.outcome = 'no_seats';
        break;
      }
      bestCount = Math.min(bestCount, together);
    } else if (held.status === 409) buyer.conflicts++;
    else if (held.retryAfterMs) await sleep(held.retryAfterMs);
  }
  if (!hold) {
    if (buyer.outcome === 'waiting') buyer.outcome = 'no_seats';
    // Giving the turn back takes the customer's token, as the page's leave does.
    await call(`${context.edgeUrl}/api/showtimes/${context.showtimeId}/queue`, {
      method: 'DELETE',
      headers: { ...base, authorization: `Bearer ${customer}` },
    });
    return;
  }
  buyer.heldAtMs = Date.now();
  await sleep(jitter(1_000)); // filling in the payment form
  let checkout: Answer | null = null;
  const key = `rehearsal-${buyer.id}-${hold.holdId}`;
  for (let attempt = 0; attempt < 4; attempt++) {
    checkout = await call(`${context.edgeUrl}/api/holds/${hold.holdId}/checkout`, {
      method: 'POST',
      headers: { ...auth, 'idempotency-key': key },
    });
    note(checkout);
    if (checkout.status === 201 || (checkout.status < 500 && checkout.status !== 429 && checkout.status !== 409)) break;
    await sleep(checkout.retryAfterMs ?? 1_000);
  }
  if (checkout?.status !== 201) {
    buyer.outcome = 'gave_up';
    return;
  }
  const approved = await call(`${context.paymentsUrl}/v1/payments/${checkout.json.paymentId}/approve`, {
    method: 'POST',
    headers: { authorization: `Bearer ${context.paymentApiKey}` },
  });
  buyer.paid = approved.status === 200;
  buyer.outcome = buyer.paid ? 'bought' : 'gave_up';
}
