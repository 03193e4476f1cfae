import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { leadingZeroBits, searchNonces, sha256 } from './sha256';

const hex = (words: Uint32Array) => Array.from(words, (w) => (w >>> 0).toString(16).padStart(8, '0')).join('');

describe('the Worker SHA-256', () => {
  it('agrees with node:crypto on every length around the block boundaries, and on non-ASCII text', () => {
    for (let length = 0; length < 140; length++) {
      const text = 'x'.repeat(length);
      expect(hex(sha256(text)), `length ${length}`).toBe(createHash('sha256').update(text).digest('hex'));
    }
    expect(hex(sha256('v1.42.12.é:zz'))).toBe(createHash('sha256').update('v1.42.12.é:zz').digest('hex'));
  });

  it('finds a nonce whose hash has the leading zero bits the edge checks', () => {
    const challenge = 'v1.42.14.1700000000000.AAAAAAAAAAAAAAAAAAAAAA.BBBB';
    let nonce: string | null = null;
    for (let from = 0; nonce === null; from += 10_000) nonce = searchNonces(challenge, 14, from, 10_000);
    const digest = createHash('sha256').update(`${challenge}:${nonce}`).digest();
    expect(digest.readUInt16BE(0) >>> 2).toBe(0);
    expect(leadingZeroBits(new Uint32Array([0, 0x00ffffff]))).toBe(40);
  });
});
