import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { TOKEN_ISSUER } from '../../../lib/access-token';
import { generateSigningJwk, loadTokenKeys } from '../../../lib/token-keys';
import { createQueueTokens, QUEUE_TOKEN_TYPE } from './queue-token';

const options = { ttlMs: 60_000, clockToleranceMs: 5_000 };
const claims = { customerId: 'c-1', showtimeId: '42', ticket: 7 };

async function refusalOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'accepted';
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

describe('queue tokens (HS256, key derived from the signing key)', () => {
  it('round-trips the claims, and every edge holding the same signing key reads them', async () => {
    const jwk = await generateSigningJwk('q-1');
    const [a, b] = [await loadTokenKeys({ signingJwk: jwk }), await loadTokenKeys({ signingJwk: jwk })];
    const token = await createQueueTokens(a, options).sign(claims);
    expect(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString())).toMatchObject({
      alg: 'HS256',
      kid: 'q-1',
      typ: QUEUE_TOKEN_TYPE,
    });
    expect(await createQueueTokens(b, options).verify(token)).toMatchObject(claims);
  });

  it('refuses another key, an unknown kid, a tampered payload, an ES256 token of the same shape, and expiry', async () => {
    const keys = await loadTokenKeys({ signingJwk: await generateSigningJwk('q-1') });
    const other = await loadTokenKeys({ signingJwk: await generateSigningJwk('q-1') }); // same kid, other key
    const stranger = await loadTokenKeys({ signingJwk: await generateSigningJwk('q-9') });
    let clock = Date.now();
    const tokens = createQueueTokens(keys, { ...options, now: () => clock });
    const good = await tokens.sign(claims);
    const [header, payload, signature] = good.split('.') as [string, string, string];
    const tampered = `${header}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), tkt: 1 })).toString('base64url')}.${signature}`;
    const es256 = await new SignJWT({ tkt: 7 })
      .setProtectedHeader({ alg: 'ES256', kid: 'q-1', typ: QUEUE_TOKEN_TYPE })
      .setIssuer(TOKEN_ISSUER)
      .setSubject('c-1')
      .setAudience('showtime:42')
      .setExpirationTime('1m')
      .sign(keys.signing!.privateKey);
    expect(await refusalOf(tokens.verify(await createQueueTokens(other, options).sign(claims)))).toBe('INVALID_TOKEN');
    expect(await refusalOf(tokens.verify(await createQueueTokens(stranger, options).sign(claims)))).toBe(
      'INVALID_TOKEN',
    );
    expect(await refusalOf(tokens.verify(tampered))).toBe('INVALID_TOKEN');
    expect(await refusalOf(tokens.verify(es256))).toBe('INVALID_TOKEN');
    expect(await refusalOf(tokens.verify('not.a.token'))).toBe('INVALID_TOKEN');
    const fresh = createQueueTokens(keys, { ...options, now: () => clock });
    clock += 66_000; // past the ttl and the tolerance
    expect(await refusalOf(fresh.verify(await createQueueTokens(keys, options).sign(claims)))).toBe('TOKEN_EXPIRED');
  });

  it('keeps accepting tokens of the previous key during a rotation (its private JWK listed)', async () => {
    const previous = await generateSigningJwk('q-1');
    const old = await loadTokenKeys({ signingJwk: previous });
    const rotated = await loadTokenKeys({ signingJwk: await generateSigningJwk('q-2'), publicJwks: [previous] });
    const token = await createQueueTokens(old, options).sign(claims);
    expect(await createQueueTokens(rotated, options).verify(token)).toMatchObject(claims);
    expect(rotated.publicJwks.keys.every((key) => !('d' in key))).toBe(true);
    const withoutIt = await loadTokenKeys({ signingJwk: await generateSigningJwk('q-2') });
    expect(await refusalOf(createQueueTokens(withoutIt, options).verify(token))).toBe('INVALID_TOKEN');
  });
});

describe('queue tokens signed with node:crypto', () => {
  it('are the very bytes jose signs, and verify like them', async () => {
    const { nodeHmacSha256 } = await import('./queue-token-node');
    const keys = await loadTokenKeys({ signingJwk: await generateSigningJwk('q-n') });
    const at = () => 1_790_000_123_456;
    const viaJose = createQueueTokens(keys, { ...options, now: at });
    const viaNode = createQueueTokens(keys, { ...options, now: at, hmacSha256: nodeHmacSha256() });
    for (const c of [claims, { customerId: 'ü-x_1', showtimeId: '1', ticket: 0 }]) {
      const token = await viaNode.sign(c);
      expect(token).toBe(await viaJose.sign(c));
      expect(await viaJose.verify(token)).toMatchObject(c);
    }
  });
});

describe('synchronous verify (the poll fast path)', () => {
  const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

  async function setUp() {
    const { nodeHmacSha256 } = await import('./queue-token-node');
    const keys = await loadTokenKeys({ signingJwk: await generateSigningJwk('q-s') });
    let clock = 1_790_000_123_456;
    const make = (extra: Partial<Parameters<typeof createQueueTokens>[1]> = {}) =>
      createQueueTokens(keys, { ...options, now: () => clock, hmacSha256: nodeHmacSha256(), ...extra });
    return { keys, make, advance: (ms: number) => (clock += ms), hmac: nodeHmacSha256() };
  }

  it('reads the tokens sign makes, with the claims verify gives, and is off without a synchronous HMAC', async () => {
    const { make } = await setUp();
    const signer = make();
    const reader = make(); // another process: nothing cached
    for (const c of [claims, { customerId: 'ü-x_1', showtimeId: '1', ticket: 0 }]) {
      const token = await signer.sign(c);
      expect(reader.peekVerified(token)).toBeUndefined();
      expect(reader.verifyNow(token)).toEqual(await make().verify(token));
      expect(reader.peekVerified(token)).toMatchObject(c); // remembered
    }
    const withoutHmac = createQueueTokens((await setUp()).keys, options);
    expect(withoutHmac.verifyNow(await withoutHmac.sign(claims))).toBeUndefined();
  });

  it('accepts nothing verify refuses: forged, tampered, expired, other kinds and shapes', async () => {
    const { keys, make, advance, hmac } = await setUp();
    const tokens = make();
    const good = await make().sign(claims);
    const [header, payload] = good.split('.') as [string, string, string];
    const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const resign = (h: object, p: object) =>
      `${b64(h)}.${b64(p)}.${hmac(keys.queueKeys.signing!.key, `${b64(h)}.${b64(p)}`)}`;
    const headerObject = JSON.parse(Buffer.from(header, 'base64url').toString());
    const cases = {
      tampered: `${header}.${b64({ ...decoded, tkt: 1 })}.${good.split('.')[2]}`,
      badSignature: `${header}.${payload}.${'A'.repeat(43)}`,
      otherKey: await createQueueTokens(
        await loadTokenKeys({ signingJwk: await generateSigningJwk('q-s') }),
        options,
      ).sign(claims),
      extraHeader: resign({ ...headerObject, crit: ['b64'] }, decoded),
      extraClaim: resign(headerObject, { ...decoded, nbf: decoded.iat + 3600 }),
      wrongIssuer: resign(headerObject, { ...decoded, iss: 'someone' }),
      wrongAudience: resign(headerObject, { ...decoded, aud: 'showtime:x' }),
      negativeTicket: resign(headerObject, { ...decoded, tkt: -1 }),
      algNone: `${b64({ ...headerObject, alg: 'none' })}.${payload}.`,
      junk: 'not.a.token',
    };
    for (const [name, token] of Object.entries(cases)) {
      expect({ name, now: tokens.verifyNow(token) }).toEqual({ name, now: undefined });
      expect({ name, later: await refusalOf(make().verify(token)) }).not.toEqual({ name, later: 'accepted' });
    }
    // Stricter than verify where verify is lenient: jose reads a padded signature; this leaves it to verify.
    expect(tokens.verifyNow(`${good}=`)).toBeUndefined();
    advance(options.ttlMs + 1);
    expect(make().verifyNow(good)).toBeUndefined(); // expired (no tolerance here: verify decides)
  });

  it('never accepts a token verify refuses, for any single-character change (property)', async () => {
    const fc = await import('fast-check');
    const { make } = await setUp();
    const good = await make().sign(claims);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=';
    await fc.assert(
      fc.asyncProperty(fc.nat(good.length - 1), fc.constantFrom(...alphabet), async (at, char) => {
        const token = good.slice(0, at) + char + good.slice(at + 1);
        const now = make().verifyNow(token);
        if (now === undefined) return;
        expect(await make().verify(token)).toEqual(now);
      }),
      { numRuns: 300 },
    );
  });
});
