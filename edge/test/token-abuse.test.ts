/**
 * The token-abuse matrix: every forged, misused or stale token is refused, on the purchase
 * routes (access token), on poll (queue token) and on join (customer token).
 */
import { SignJWT, base64url } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCESS_TOKEN_TYPE, TOKEN_ISSUER, signAccessToken } from '../../lib/access-token';
import { generateSigningJwk, loadTokenKeys } from '../../lib/token-keys';
import { createEdgeHarness, fastRoom, testTokenKeys, type EdgeHarness } from './edge-harness';

let edge: EdgeHarness;
let showtimeId: number;
let otherShowtimeId: number;

beforeAll(async () => {
  edge = await createEdgeHarness();
  showtimeId = edge.core.addShowtime();
  otherShowtimeId = edge.core.addShowtime();
  await edge.configureRoom(showtimeId, { ...fastRoom, capacity: 50 });
  await edge.configureRoom(otherShowtimeId, { ...fastRoom, capacity: 50 });
});
afterAll(() => edge?.close());

const nowSeconds = () => Math.floor(Date.now() / 1000);

function unsigned(header: object, payload: object): string {
  const encode = (value: object) => base64url.encode(JSON.stringify(value));
  return `${encode(header)}.${encode(payload)}.`;
}

async function signWith(options: {
  typ?: string;
  aud?: string;
  sub?: string;
  expSeconds?: number;
  kid?: string;
  otherKey?: boolean;
  extra?: object;
}) {
  const keys = options.otherKey
    ? await loadTokenKeys({ signingJwk: await generateSigningJwk('edge-test-1') })
    : await testTokenKeys();
  return new SignJWT({ sid: 's', tkt: 1, ...options.extra })
    .setProtectedHeader({ alg: 'ES256', kid: options.kid ?? keys.signing!.kid, typ: options.typ ?? ACCESS_TOKEN_TYPE })
    .setIssuer(TOKEN_ISSUER)
    .setSubject(options.sub ?? 'abuse-a')
    .setAudience(options.aud ?? `showtime:${showtimeId}`)
    .setIssuedAt()
    .setExpirationTime(options.expSeconds ?? nowSeconds() + 600)
    .sign(keys.signing!.privateKey);
}

describe('access tokens on purchase routes', () => {
  const seatMap = (token: string, headers: Record<string, string> = {}, id = showtimeId) =>
    edge.call('GET', `/api/showtimes/${id}/seats`, { token, headers });

  it('accepts a genuine token, and one expired within the clock tolerance', async () => {
    expect((await seatMap(await signWith({}))).status).toBe(200);
    expect((await seatMap(await signWith({ expSeconds: nowSeconds() - 2 }))).status).toBe(200);
  });

  it.each([
    ['missing', async () => ''],
    [
      'unsigned (alg: none)',
      async () =>
        unsigned(
          { alg: 'none', typ: ACCESS_TOKEN_TYPE },
          { iss: TOKEN_ISSUER, sub: 'abuse-a', aud: `showtime:${showtimeId}`, exp: nowSeconds() + 600 },
        ),
    ],
    ['signature stripped', async () => (await signWith({})).split('.').slice(0, 2).join('.') + '.'],
    [
      'wrong algorithm (HS256 keyed with a public value)',
      async () => {
        const jwk = (await testTokenKeys()).publicJwks.keys[0]!;
        return new SignJWT({ sid: 's' })
          .setProtectedHeader({ alg: 'HS256', kid: jwk.kid!, typ: ACCESS_TOKEN_TYPE })
          .setIssuer(TOKEN_ISSUER)
          .setSubject('abuse-a')
          .setAudience(`showtime:${showtimeId}`)
          .setExpirationTime(nowSeconds() + 600)
          .sign(new TextEncoder().encode(String(jwk.x)));
      },
    ],
    ['wrong typ (JWT)', () => signWith({ typ: 'JWT' })],
    ['a queue token used as access token', () => signWith({ typ: 'wr-queue+jwt' })],
    ['a customer token used as access token', () => signWith({ typ: 'wr-customer+jwt' })],
    ['expired beyond the tolerance', () => signWith({ expSeconds: nowSeconds() - 30 })],
    ['signed by another key with the same kid', () => signWith({ otherKey: true })],
    ['unknown kid', () => signWith({ kid: 'rotated-away' })],
    [
      'tampered payload',
      async () => {
        const [header, , signature] = (await signWith({})).split('.');
        const payload = base64url.encode(
          JSON.stringify({
            iss: TOKEN_ISSUER,
            sub: 'someone-else',
            aud: `showtime:${showtimeId}`,
            exp: nowSeconds() + 600,
          }),
        );
        return `${header}.${payload}.${signature}`;
      },
    ],
  ])('refuses %s with 401', async (_name, make) => {
    const token = await make();
    const result = await edge.call('GET', `/api/showtimes/${showtimeId}/seats`, token ? { token } : {});
    expect(result.status).toBe(401);
    expect(result.json.error.code).toMatch(/TOKEN/);
  });

  it('refuses a token for another showtime with 403, on seat maps and holds', async () => {
    const token = await signWith({ aud: `showtime:${otherShowtimeId}` });
    expect((await seatMap(token)).status).toBe(403);
    const hold = await edge.call('POST', `/api/showtimes/${showtimeId}/holds`, { token, body: { seats: ['A1'] } });
    expect(hold).toMatchObject({ status: 403, json: { error: { code: 'WRONG_SHOWTIME' } } });
  });

  it("refuses customer A's access token presented by customer B", async () => {
    const tokenOfA = await signAccessToken(await testTokenKeys(), {
      customerId: 'abuse-a',
      showtimeId,
      sessionId: 's',
      expiresAtMs: Date.now() + 60_000,
    });
    const b = await edge.login('abuse-b');
    const result = await seatMap(tokenOfA, { 'x-customer-token': b.token });
    expect(result).toMatchObject({ status: 403, json: { error: { code: 'NOT_YOUR_TOKEN' } } });
    const a = await edge.login('abuse-a');
    expect((await seatMap(tokenOfA, { 'x-customer-token': a.token })).status).toBe(200);
  });

  it("passes B's hold request with A's hold id to the core, which refuses it (not yours)", async () => {
    // New holds need a live turn in the room, so A is admitted through the queue.
    const joined = await edge.join(showtimeId, (await edge.login('abuse-a')).token);
    expect(joined.json.state).toBe('admitted');
    const tokenOfA = joined.json.accessToken as string;
    const tokenOfB = await signAccessToken(await testTokenKeys(), {
      customerId: 'abuse-b',
      showtimeId,
      sessionId: 's',
      expiresAtMs: Date.now() + 60_000,
    });
    const hold = await edge.call('POST', `/api/showtimes/${showtimeId}/holds`, {
      token: tokenOfA,
      body: { seats: ['A1'] },
    });
    expect(hold.status).toBe(201);
    expect((await edge.call('DELETE', `/api/holds/${hold.json.holdId}`, { token: tokenOfB })).status).toBe(403);
  });
});

describe('queue tokens on poll, customer tokens on join', () => {
  it('refuses an access token or a customer token used as a queue token', async () => {
    const a = await edge.login('abuse-q-a');
    for (const token of [
      await signWith({ sub: 'abuse-q-a' }),
      a.token,
      await signWith({ typ: 'wr-queue+jwt', expSeconds: nowSeconds() - 60 }),
    ]) {
      expect((await edge.poll(showtimeId, token)).status).toBe(401);
    }
  });

  it("refuses a queue token for another showtime, and A's queue token with B's identity", async () => {
    const a = await edge.login('abuse-q-a2');
    const b = await edge.login('abuse-q-b2');
    const joined = await edge.join(showtimeId, a.token);
    expect(joined.status).toBe(200);
    expect((await edge.poll(otherShowtimeId, joined.json.queueToken)).status).toBe(403);
    const stolen = await edge.call('GET', `/api/showtimes/${showtimeId}/queue`, {
      token: b.token,
      headers: { 'x-queue-token': joined.json.queueToken },
    });
    expect(stolen).toMatchObject({ status: 403, json: { error: { code: 'NOT_YOUR_TOKEN' } } });
    expect((await edge.poll(showtimeId, joined.json.queueToken)).status).toBe(200);
  });

  it('refuses queue and access tokens as customer identity on join, and alg none', async () => {
    for (const token of [
      await signWith({ typ: 'wr-queue+jwt' }),
      await signWith({}),
      unsigned(
        { alg: 'none', typ: 'wr-customer+jwt' },
        { iss: TOKEN_ISSUER, aud: 'flash-sale-customer', sub: 'x', exp: nowSeconds() + 60 },
      ),
      await signWith({ typ: 'wr-customer+jwt', aud: 'flash-sale-customer', expSeconds: nowSeconds() - 60 }),
    ]) {
      expect((await edge.join(showtimeId, token)).status).toBe(401);
    }
  });
});
