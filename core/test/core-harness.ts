import pino from 'pino';
import type { Sql } from 'postgres';
import { createAccessTokenVerifier, signAccessToken } from '../../lib/access-token';
import { createCustomerAccessVerifier, signCustomerAccessToken } from '../../lib/customer-access-token';
import { generateSigningJwk, loadTokenKeys, type TokenKeyMaterial } from '../../lib/token-keys';
import { createCoreApp } from '../src/app';
import { insertShowtime, type NewShowtime } from '../src/catalog/showtime-repo';
import { insertHallWithSeats, insertVenue } from '../src/catalog/venue-repo';
import { rectangularLayout, type LayoutOptions } from '../src/demo/seat-layout';
import { createCoreMetrics } from '../src/metrics';
import { callJson, type JsonCallInit } from '../../test/support/json-call';
import { gatewayUnavailable, type PaymentGateway } from '../src/payments/gateway-client';
import type { AdmissionCheck } from '../src/http/admission';
import { createSeatGate, type SeatGateSettings } from '../src/gate/seat-gate';
import type { ScriptStore } from '../../queue/src/index';

/** The seat gate in front of the holds (core/src/gate/): its store, key namespace and settings. */
export interface HarnessGate {
  store: ScriptStore;
  keyPrefix: string;
  settings?: Partial<SeatGateSettings>;
}

export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789';
export const TEST_WEBHOOK_SECRET = 'whsec_test_secret';
export const TEST_PUBLIC_URL = 'http://buyers.test';

/** For tests that never reach a gateway: every call answers "unavailable". */
const noGateway: PaymentGateway = {
  createPayment: async () => {
    throw gatewayUnavailable();
  },
  getPayment: async () => {
    throw gatewayUnavailable();
  },
  refund: async () => {
    throw gatewayUnavailable();
  },
};

let keysPromise: Promise<TokenKeyMaterial> | null = null;
/** One key pair per test process: signing keys is slow, and tests only need them to agree. */
export const testTokenKeys = () =>
  (keysPromise ??= generateSigningJwk('test-1').then((jwk) => loadTokenKeys({ signingJwk: jwk })));

let uniqueCounter = 0;
export const unique = (label: string) => `${label}-${process.pid}-${Date.now().toString(36)}-${++uniqueCounter}`;

/** The core app in process (`app.request()`), plus helpers to set a sale up and act as buyers. */
export async function createCoreHarness(
  sql: Sql,
  options: {
    gateway?: PaymentGateway;
    webhookSecrets?: string[];
    admission?: AdmissionCheck;
    gate?: HarnessGate;
    /** This "process's" instance number on its checkout claims (checkout/claim-owner.ts). */
    claimOwner?: number | null;
  } = {},
) {
  const tokenKeys = await testTokenKeys();
  const metrics = createCoreMetrics();
  const gate = options.gate ? createSeatGate({ sql, registry: metrics.registry, ...options.gate }) : null;
  const app = createCoreApp({
    sql,
    logger: pino({ level: 'silent' }),
    metrics,
    verifyAccessToken: createAccessTokenVerifier(tokenKeys),
    verifyCustomerAccess: createCustomerAccessVerifier(tokenKeys),
    adminToken: TEST_ADMIN_TOKEN,
    gateway: options.gateway ?? noGateway,
    webhookSecrets: options.webhookSecrets ?? [TEST_WEBHOOK_SECRET],
    publicBaseUrl: TEST_PUBLIC_URL,
    admission: options.admission ?? null,
    seatGate: gate,
    claimOwner: options.claimOwner ?? null,
  });

  async function tokenFor(customerId: string, showtimeId: number, ttlMs = 600_000) {
    return signAccessToken(tokenKeys, {
      customerId,
      showtimeId,
      sessionId: `s-${customerId}`,
      expiresAtMs: Date.now() + ttlMs,
    });
  }

  /** A customer access token, as the edge signs it after verifying the customer token. */
  const customerTokenFor = (customerId: string) => signCustomerAccessToken(tokenKeys, customerId);

  async function createHall(layout: LayoutOptions = { rows: 10, columns: 15 }) {
    const venue = await insertVenue(sql, { name: unique('venue'), city: 'Test' });
    return insertHallWithSeats(sql, { venueId: venue.id, name: 'Hall', seats: rectangularLayout(layout) });
  }

  /** A showtime on sale now (opened an hour ago, starts tomorrow) unless told otherwise. */
  async function createShowtime(options: Partial<NewShowtime> & { layout?: LayoutOptions } = {}) {
    const hallId = options.hallId ?? (await createHall(options.layout)).id;
    const now = Date.now();
    const { id } = await insertShowtime(sql, {
      hallId,
      title: options.title ?? unique('show'),
      startsAt: options.startsAt ?? new Date(now + 86_400_000),
      opensAt: options.opensAt ?? new Date(now - 3_600_000),
      saleState: options.saleState ?? 'OPEN',
      priceCents: options.priceCents ?? 1000,
      currency: options.currency ?? 'EUR',
      maxSeatsPerCustomer: options.maxSeatsPerCustomer ?? 8,
      holdTtlMs: options.holdTtlMs ?? 600_000,
    });
    return { showtimeId: id, hallId };
  }

  const call = (method: string, path: string, options: JsonCallInit = {}) =>
    callJson((p, init) => app.request(p, init), method, path, options);

  /** A buyer's hold attempt: a fresh token for the customer, then POST …/holds. */
  async function hold(showtimeId: number, customerId: string, seats: string[]) {
    return call('POST', `/showtimes/${showtimeId}/holds`, {
      token: await tokenFor(customerId, showtimeId),
      body: { seats },
    });
  }

  /** Counts by the database clock; `db` lets a sampler use a connection of its own. */
  async function seatStatusCounts(showtimeId: number, db: Sql = sql) {
    const [row] = await db<{ available: number; held: number; booked: number; total: number }[]>`
      SELECT count(*) FILTER (WHERE status = 'AVAILABLE' OR (status = 'HELD' AND hold_expires_at <= now()))::int AS available,
             count(*) FILTER (WHERE status = 'HELD' AND hold_expires_at > now())::int AS held,
             count(*) FILTER (WHERE status = 'BOOKED')::int AS booked,
             count(*)::int AS total
        FROM show_seat WHERE showtime_id = ${showtimeId}`;
    return row!;
  }

  return {
    app,
    sql,
    metrics,
    gate,
    tokenKeys,
    tokenFor,
    customerTokenFor,
    createHall,
    createShowtime,
    call,
    hold,
    seatStatusCounts,
  };
}

export type CoreHarness = Awaited<ReturnType<typeof createCoreHarness>>;

/** Starts every task at the same instant: each waits on one gate that opens once all are queued. */
export async function releasedTogether<T>(count: number, task: (index: number) => Promise<T>): Promise<T[]> {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const running = Array.from({ length: count }, (_, index) => gate.then(() => task(index)));
  open();
  return Promise.all(running);
}
