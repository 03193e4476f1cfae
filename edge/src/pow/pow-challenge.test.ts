import { describe, expect, it } from 'vitest';
import { createPowChallenges, leadingZeroBits } from './pow-challenge';
import { solvePow } from './pow-solve-node';

describe('proof-of-work challenges', () => {
  it('counts leading zero bits', () => {
    expect(leadingZeroBits(new Uint8Array([0x00, 0x0f, 0xff]))).toBe(12);
    expect(leadingZeroBits(new Uint8Array([0x80]))).toBe(0);
    expect(leadingZeroBits(new Uint8Array([0, 0]))).toBe(16);
  });

  it('accepts a solution and refuses forged, foreign, expired and weak ones', async () => {
    let now = 1_000_000;
    const pow = createPowChallenges({ secret: 'test-secret', ttlMs: 60_000, now: () => now });
    const client = { address: '203.0.113.1', customerId: 'alice' };
    const challenge = await pow.issue('42', 10, client);
    const { nonce } = solvePow(challenge, 10);
    expect(await pow.verify(challenge, nonce, '42', client)).toMatchObject({
      ok: true,
      difficulty: 10,
      bits: expect.any(Number),
    });
    expect(await pow.verify(challenge, nonce, '43', client)).toEqual({ ok: false, reason: 'wrong_showtime' });
    // Bound to the address and the customer it was issued to.
    expect(await pow.verify(challenge, nonce, '42', { ...client, address: '198.51.100.9' })).toEqual({
      ok: false,
      reason: 'wrong_client',
    });
    expect(await pow.verify(challenge, nonce, '42', { ...client, customerId: 'mallory' })).toEqual({
      ok: false,
      reason: 'wrong_client',
    });
    expect(await pow.verify(challenge, nonce, '42', { ...client, address: null })).toEqual({
      ok: false,
      reason: 'wrong_client',
    });
    const tampered = challenge.replace('.10.', '.1.');
    expect(await pow.verify(tampered, solvePow(tampered, 1).nonce, '42', client)).toEqual({
      ok: false,
      reason: 'forged',
    });
    const other = createPowChallenges({ secret: 'another-secret', ttlMs: 60_000, now: () => now });
    expect(await other.verify(challenge, nonce, '42', client)).toEqual({ ok: false, reason: 'forged' });
    // A nonce that misses: find one whose hash does not have the bits.
    let weak = 0;
    while ((await pow.verify(challenge, weak.toString(36), '42', client)).ok) weak++;
    expect(await pow.verify(challenge, weak.toString(36), '42', client)).toEqual({ ok: false, reason: 'too_weak' });
    expect(await pow.verify('junk', nonce, '42', client)).toEqual({ ok: false, reason: 'malformed' });
    now += 60_001;
    expect(await pow.verify(challenge, nonce, '42', client)).toEqual({ ok: false, reason: 'expired' });
  });
});
