/**
 * Abuse matrix, identities and the smaller findings, through the edge's HTTP API on the
 * run's Redis: demo login picks the id itself (a supplied one, a victim's or `__proto__`, is
 * ignored), is limited per address, and cannot be switched on in production or beside a real
 * identity provider; public default secrets are refused where others can reach them; the
 * leave beacon is flood-limited; made-up showtime ids cannot wipe the console's counters.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCoreConfig } from '../../core/src/config';
import { DEV_ADMIN_TOKEN, parseEdgeConfig } from '../src/config';
import { createMemoryFloodLimiter } from '../src/limits/flood-limiter';
import { DEV_FAIRNESS_RECEIPT_JWK } from '../../lib/fairness-receipt';
import { createEdgeHarness, EDGE_ADMIN_TOKEN, fastRoom, signCustomerToken, type EdgeHarness } from './edge-harness';

let edge: EdgeHarness;
beforeAll(async () => {
  edge = await createEdgeHarness({ env: { DEMO_LOGIN_PER_MINUTE: '5' } });
});
afterAll(() => edge?.close());

const demo = (body: unknown, client = '192.0.2.30') =>
  edge.call('POST', '/api/auth/demo', { body, headers: { 'x-test-client': client } });

describe('demo identities', () => {
  it("never hands out a chosen id: a victim's place cannot be taken over or thrown out", async () => {
    const showtimeId = edge.core.addShowtime();
    await edge.configureRoom(showtimeId, { ...fastRoom, state: 'paused' });
    const victim = { customerId: `victim-${showtimeId}`, token: await signCustomerToken(`victim-${showtimeId}`) };
    const placed = await edge.join(showtimeId, victim.token);
    expect(placed.json.state).toBe('paused');
    const impostor = await demo({ customerId: victim.customerId }, '192.0.2.31');
    expect(impostor.status).toBe(200);
    expect(impostor.json.customerId).not.toBe(victim.customerId);
    const thrownOut = await edge.call('DELETE', `/api/showtimes/${showtimeId}/queue`, { token: impostor.json.token });
    expect(thrownOut.json).toMatchObject({ state: 'left', removed: false });
    expect((await edge.poll(showtimeId, placed.json.queueToken)).json.state).toBe('paused');
    const proto = await demo({ customerId: '__proto__' }, '192.0.2.31');
    expect(proto.json.customerId).toMatch(/^demo-[0-9a-f]{20}$/);
  });

  it('refuses customer tokens whose id names a prototype property', async () => {
    const showtimeId = edge.core.addShowtime();
    await edge.configureRoom(showtimeId, { ...fastRoom, state: 'paused' });
    for (const id of ['__proto__', 'constructor', 'prototype', 'hasOwnProperty']) {
      expect((await edge.join(showtimeId, await signCustomerToken(id))).status, id).toBe(401);
    }
  });

  it('limits demo logins per address', async () => {
    const statuses = [];
    for (let i = 0; i < 7; i++) statuses.push((await demo({}, '192.0.2.40')).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    const limited = await demo({}, '192.0.2.40');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await demo({}, '192.0.2.41')).status).toBe(200);
  });

  it('cannot be enabled in production or beside a real identity provider', () => {
    const base = {
      ADMIN_TOKEN: EDGE_ADMIN_TOKEN,
      TOKEN_SIGNING_KEY: '{}',
      EDGE_HOST: '127.0.0.1',
      FAIRNESS_RECEIPT_KEY: OWN_RECEIPT_KEY,
    };
    const idp = { CUSTOMER_JWKS_URL: 'https://idp.example/jwks.json', CUSTOMER_ISSUER: 'i', CUSTOMER_AUDIENCE: 'a' };
    expect(() => parseEdgeConfig({ ...base, ...idp, NODE_ENV: 'production', DEMO_LOGIN: '1' })).toThrow(/DEMO_LOGIN/);
    expect(() => parseEdgeConfig({ ...base, ...idp, DEMO_LOGIN: '1' })).toThrow(/CUSTOMER_JWKS_URL/);
    expect(parseEdgeConfig({ ...base, ...idp }).demoLogin).toBe(false);
    expect(parseEdgeConfig({ ...base, ...idp, NODE_ENV: 'production' }).demoLogin).toBe(false);
    expect(parseEdgeConfig(base).demoLogin).toBe(true);
  });
});

/** A receipt key of the deployment's own (not the public development one): production asks for it. */
const OWN_RECEIPT_KEY = JSON.stringify({ ...DEV_FAIRNESS_RECEIPT_JWK, d: 'A'.repeat(43), kid: 'own' });

describe('default secrets', () => {
  it('are refused off loopback and in production, and only warned about on loopback', () => {
    expect(() => parseEdgeConfig({ EDGE_HOST: '0.0.0.0' })).toThrow(/ADMIN_TOKEN/);
    expect(() => parseEdgeConfig({ EDGE_HOST: '0.0.0.0', ADMIN_TOKEN: DEV_ADMIN_TOKEN })).toThrow(/ADMIN_TOKEN/);
    expect(parseEdgeConfig({ EDGE_HOST: '127.0.0.1' }).warnings.join()).toMatch(/ADMIN_TOKEN/);
    expect(
      parseEdgeConfig({ EDGE_HOST: '0.0.0.0', ADMIN_TOKEN: EDGE_ADMIN_TOKEN, FAIRNESS_RECEIPT_KEY: OWN_RECEIPT_KEY })
        .warnings,
    ).toEqual([]);
    const ownSecrets = { ADMIN_TOKEN: EDGE_ADMIN_TOKEN, PAYMENT_WEBHOOK_SECRET: 'whsec_0123456789abcdef' };
    expect(() => parseCoreConfig({ CORE_HOST: '0.0.0.0', ADMIN_TOKEN: EDGE_ADMIN_TOKEN })).toThrow(
      /PAYMENT_WEBHOOK_SECRET/,
    );
    expect(() => parseCoreConfig({ CORE_HOST: '0.0.0.0', PAYMENT_WEBHOOK_SECRET: 'whsec_0123456789abcdef' })).toThrow(
      /ADMIN_TOKEN/,
    );
    expect(() =>
      parseCoreConfig({
        CORE_HOST: '0.0.0.0',
        ADMIN_TOKEN: EDGE_ADMIN_TOKEN,
        PAYMENT_WEBHOOK_SECRET: 'whsec_dev_only',
      }),
    ).toThrow(/PAYMENT_WEBHOOK_SECRET/);
    expect(parseCoreConfig({ CORE_HOST: '0.0.0.0', ...ownSecrets }).warnings).toEqual([]);
    expect(parseCoreConfig({ CORE_HOST: '127.0.0.1' }).warnings).toHaveLength(2);
  });
});

describe('smaller findings', () => {
  it('flood-limits the leave beacon per address', async () => {
    const limited = await createEdgeHarness({
      floodLimiter: createMemoryFloodLimiter({ points: 5, windowMs: 60_000 }),
    });
    try {
      const showtimeId = limited.core.addShowtime();
      const cookie = `wr_customer=${await signCustomerToken(`beacon-${showtimeId}`)}`;
      const statuses = [];
      for (let i = 0; i < 8; i++) {
        statuses.push(
          (
            await limited.call('POST', `/showtimes/${showtimeId}/leave?view=view-${i}-abcdef`, {
              headers: { cookie, 'x-test-client': '192.0.2.50' },
            })
          ).status,
        );
      }
      expect(statuses.slice(0, 5).every((s) => s === 202)).toBe(true);
      expect(statuses.slice(5)).toEqual([429, 429, 429]);
    } finally {
      await limited.close();
    }
  });

  it("keeps a real showtime's console counters while 10,050 requests hit made-up showtime ids", async () => {
    const limited = await createEdgeHarness({
      floodLimiter: createMemoryFloodLimiter({ points: 1, windowMs: 60_000 }),
    });
    try {
      const showtimeId = limited.core.addShowtime();
      const token = await signCustomerToken(`counted-${showtimeId}`);
      const join = (id: number | string, client: string) =>
        limited.call('POST', `/api/showtimes/${id}/queue`, { token, headers: { 'x-test-client': client } });
      await join(showtimeId, '192.0.2.60');
      expect((await join(showtimeId, '192.0.2.60')).status).toBe(429);
      expect(limited.app.activity.lastMinute(String(showtimeId)).rateLimited).toBe(1);
      for (let start = 0; start < 10_050; start += 250) {
        await Promise.all(Array.from({ length: 250 }, (_, i) => join(900_000_000 + start + i, '192.0.2.61')));
        if (start % 2_000 === 0) await join(showtimeId, '192.0.2.60'); // the real showtime stays busy
      }
      expect(limited.app.activity.lastMinute(String(showtimeId)).rateLimited).toBeGreaterThan(1);
    } finally {
      await limited.close();
    }
  });
});
