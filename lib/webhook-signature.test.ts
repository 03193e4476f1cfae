import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeSignature, parseSignatureHeader, signWebhook, verifyWebhookSignature } from './webhook-signature';

const SECRET = 'whsec_test_current';
const OLD_SECRET = 'whsec_test_previous';
const NOW = 1_760_000_000;
const body = JSON.stringify({
  id: 'evt_1',
  type: 'payment.succeeded',
  created: NOW,
  data: { paymentId: 'pay_1', amount: 2400, currency: 'EUR', reference: 'hold_1' },
});

describe('signWebhook', () => {
  it('matches an independent HMAC of "<t>.<body>"', () => {
    const expected = createHmac('sha256', SECRET).update(`${NOW}.${body}`).digest('hex');
    expect(signWebhook(body, [SECRET], NOW)).toBe(`t=${NOW},v1=${expected}`);
  });

  it('emits one v1 per secret, in order', () => {
    const header = signWebhook(body, [SECRET, OLD_SECRET], NOW);
    expect(header.split(',')).toEqual([
      `t=${NOW}`,
      `v1=${computeSignature(body, SECRET, NOW)}`,
      `v1=${computeSignature(body, OLD_SECRET, NOW)}`,
    ]);
  });

  it('refuses to sign without a secret or with a bad timestamp', () => {
    expect(() => signWebhook(body, [], NOW)).toThrow();
    expect(() => signWebhook(body, [SECRET], 1.5)).toThrow();
    expect(() => signWebhook(body, [SECRET], -1)).toThrow();
  });
});

describe('verifyWebhookSignature', () => {
  const header = signWebhook(body, [SECRET], NOW);

  it('accepts the right secret', () => {
    expect(verifyWebhookSignature(body, header, [SECRET], NOW)).toEqual({ ok: true, timestamp: NOW });
  });

  it('rejects the wrong secret', () => {
    expect(verifyWebhookSignature(body, header, ['whsec_other'], NOW)).toEqual({ ok: false, reason: 'mismatch' });
  });

  it('rejects when no secret is configured', () => {
    expect(verifyWebhookSignature(body, header, [], NOW)).toEqual({ ok: false, reason: 'mismatch' });
  });

  it('accepts 299 s and 300 s old, rejects 301 s old', () => {
    const at = (age: number) => verifyWebhookSignature(body, signWebhook(body, [SECRET], NOW - age), [SECRET], NOW);
    expect(at(299).ok).toBe(true);
    expect(at(300).ok).toBe(true);
    expect(at(301)).toEqual({ ok: false, reason: 'expired' });
  });

  it('rejects timestamps in the future beyond the tolerance', () => {
    const at = (ahead: number) => verifyWebhookSignature(body, signWebhook(body, [SECRET], NOW + ahead), [SECRET], NOW);
    expect(at(299).ok).toBe(true);
    expect(at(301)).toEqual({ ok: false, reason: 'expired' });
  });

  it('honours a custom tolerance', () => {
    const old = signWebhook(body, [SECRET], NOW - 20);
    expect(verifyWebhookSignature(body, old, [SECRET], NOW, 10)).toEqual({ ok: false, reason: 'expired' });
    expect(verifyWebhookSignature(body, old, [SECRET], NOW, 30).ok).toBe(true);
  });

  it('reports mismatch, not expired, for an old forged request', () => {
    const forged = signWebhook(body, ['whsec_attacker'], NOW - 1000);
    expect(verifyWebhookSignature(body, forged, [SECRET], NOW)).toEqual({ ok: false, reason: 'mismatch' });
  });

  it('fails when the body is re-serialised', () => {
    const reserialised = JSON.stringify(JSON.parse(body), null, 1);
    expect(verifyWebhookSignature(reserialised, header, [SECRET], NOW)).toEqual({ ok: false, reason: 'mismatch' });
  });

  it('fails when the timestamp in the header is changed', () => {
    const shifted = header.replace(`t=${NOW}`, `t=${NOW + 1}`);
    expect(verifyWebhookSignature(body, shifted, [SECRET], NOW)).toEqual({ ok: false, reason: 'mismatch' });
  });

  it('accepts two v1 values when either one matches (rotation)', () => {
    const both = signWebhook(body, [OLD_SECRET, SECRET], NOW);
    expect(verifyWebhookSignature(body, both, [SECRET], NOW).ok).toBe(true);
    expect(verifyWebhookSignature(body, both, [OLD_SECRET], NOW).ok).toBe(true);
    // The verifier side of a rotation: it knows both secrets, the signer sends only the new one.
    expect(verifyWebhookSignature(body, header, [OLD_SECRET, SECRET], NOW).ok).toBe(true);
    const junkFirst = `t=${NOW},v1=${'0'.repeat(64)},v1=${computeSignature(body, SECRET, NOW)}`;
    expect(verifyWebhookSignature(body, junkFirst, [SECRET], NOW).ok).toBe(true);
  });

  it('tolerates spaces, upper-case hex and unknown schemes', () => {
    const sig = computeSignature(body, SECRET, NOW);
    expect(verifyWebhookSignature(body, ` t=${NOW} , v1=${sig.toUpperCase()} `, [SECRET], NOW).ok).toBe(true);
    expect(verifyWebhookSignature(body, `t=${NOW},v0=abc,v1=${sig}`, [SECRET], NOW).ok).toBe(true);
  });

  it('reports a missing header', () => {
    expect(verifyWebhookSignature(body, undefined, [SECRET], NOW)).toEqual({ ok: false, reason: 'missing' });
    expect(verifyWebhookSignature(body, '', [SECRET], NOW)).toEqual({ ok: false, reason: 'missing' });
    expect(verifyWebhookSignature(body, '   ', [SECRET], NOW)).toEqual({ ok: false, reason: 'missing' });
  });

  it.each([
    ['no timestamp', () => `v1=${computeSignature(body, SECRET, NOW)}`],
    ['no v1', () => `t=${NOW}`],
    ['only an unknown scheme', () => `t=${NOW},v0=${computeSignature(body, SECRET, NOW)}`],
    ['two timestamps', () => `t=${NOW},t=${NOW},v1=${computeSignature(body, SECRET, NOW)}`],
    ['non-numeric timestamp', () => `t=abc,v1=${computeSignature(body, SECRET, NOW)}`],
    ['negative timestamp', () => `t=-5,v1=${computeSignature(body, SECRET, NOW)}`],
    ['fractional timestamp', () => `t=${NOW}.5,v1=${computeSignature(body, SECRET, NOW)}`],
    ['short signature', () => `t=${NOW},v1=abcd`],
    ['non-hex signature', () => `t=${NOW},v1=${'z'.repeat(64)}`],
    ['long signature', () => `t=${NOW},v1=${computeSignature(body, SECRET, NOW)}00`],
    ['item without =', () => `t=${NOW},garbage,v1=${computeSignature(body, SECRET, NOW)}`],
    ['empty item', () => `t=${NOW},,v1=${computeSignature(body, SECRET, NOW)}`],
    ['huge header', () => `t=${NOW},${'v1='.concat('a'.repeat(64)).concat(',').repeat(100)}`],
    ['plain garbage', () => 'sha256=deadbeef'],
  ])('reports a malformed header: %s', (_name, make) => {
    expect(verifyWebhookSignature(body, make(), [SECRET], NOW)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('never throws on arbitrary header strings', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (junk) => {
        const verdict = verifyWebhookSignature(body, junk, [SECRET], NOW);
        expect(verdict.ok).toBe(false);
      }),
    );
  });
});

describe('properties', () => {
  const bodies = fc.string({ unit: 'binary', maxLength: 2000 });
  const secrets = fc.array(fc.string({ minLength: 1, maxLength: 64 }), { minLength: 1, maxLength: 3 });
  const times = fc.integer({ min: 0, max: 4_000_000_000 });

  it('any body signed with any secrets verifies with each of them', () => {
    fc.assert(
      fc.property(bodies, secrets, times, (raw, keys, t) => {
        const signed = signWebhook(raw, keys, t);
        expect(parseSignatureHeader(signed)?.timestamp).toBe(t);
        for (const key of keys)
          expect(verifyWebhookSignature(raw, signed, [key], t)).toEqual({ ok: true, timestamp: t });
      }),
    );
  });

  it('changing any single character of the body fails verification', () => {
    const cases = bodies
      .filter((raw) => raw.length > 0)
      .chain((raw) => fc.tuple(fc.constant(raw), fc.nat({ max: raw.length - 1 }), fc.integer({ min: 1, max: 0xff })));
    fc.assert(
      fc.property(cases, ([raw, index, delta]) => {
        const changed = String.fromCharCode((raw.charCodeAt(index) + delta) % 0x10000);
        const tampered = raw.slice(0, index) + changed + raw.slice(index + 1);
        fc.pre(tampered !== raw);
        const signed = signWebhook(raw, [SECRET], NOW);
        expect(verifyWebhookSignature(tampered, signed, [SECRET], NOW)).toEqual({ ok: false, reason: 'mismatch' });
      }),
    );
  });

  it('changing any single byte of the raw UTF-8 body fails verification', () => {
    const cases = fc
      .uint8Array({ minLength: 1, maxLength: 500 })
      .chain((bytes) =>
        fc.tuple(fc.constant(bytes), fc.nat({ max: bytes.length - 1 }), fc.integer({ min: 1, max: 255 })),
      );
    fc.assert(
      fc.property(cases, ([bytes, index, delta]) => {
        const raw = Buffer.from(bytes).toString('latin1');
        const copy = Buffer.from(bytes);
        copy[index] = (copy[index]! + delta) % 256;
        const tampered = copy.toString('latin1');
        const signed = signWebhook(raw, [SECRET], NOW);
        expect(verifyWebhookSignature(tampered, signed, [SECRET], NOW).ok).toBe(false);
      }),
    );
  });

  it('changing any single hex digit of the signature fails verification', () => {
    fc.assert(
      fc.property(bodies, fc.nat({ max: 63 }), fc.integer({ min: 1, max: 15 }), (raw, index, delta) => {
        const sig = computeSignature(raw, SECRET, NOW);
        const digit = ((parseInt(sig[index]!, 16) + delta) % 16).toString(16);
        const forged = sig.slice(0, index) + digit + sig.slice(index + 1);
        expect(verifyWebhookSignature(raw, `t=${NOW},v1=${forged}`, [SECRET], NOW)).toEqual({
          ok: false,
          reason: 'mismatch',
        });
      }),
    );
  });
});
