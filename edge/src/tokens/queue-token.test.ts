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
    expect(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString())).toMatchObject({ alg: 'HS256', kid: 'q-1', typ: QUEUE_TOKEN_TYPE });
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
    expect(await refusalOf(tokens.verify(await createQueueTokens(stranger, options).sign(claims)))).toBe('INVALID_TOKEN');
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
