import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { drawOrder, newSeed, seedCommitment, verifyDraw } from './fair-draw';

describe('fair draw', () => {
  it('is a permutation, independent of input order, reproducible from the seed', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.stringMatching(/^[a-z0-9]{1,8}$/), { maxLength: 60 }),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        async (ids, seedBytes) => {
          const seed = Buffer.from(seedBytes).toString('hex');
          const order = await drawOrder(seed, ids);
          expect([...order].sort()).toEqual([...ids].sort());
          expect(await drawOrder(seed, [...ids].reverse())).toEqual(order);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('depends on the seed, and verification checks the commitment', async () => {
    const ids = Array.from({ length: 30 }, (_, i) => `c${i}`);
    const seed = newSeed();
    const other = newSeed();
    const order = await drawOrder(seed, ids);
    expect(await drawOrder(other, ids)).not.toEqual(order);
    const seedHash = await seedCommitment(seed);
    expect(await verifyDraw({ seed, seedHash }, ids, order)).toBe(true);
    expect(await verifyDraw({ seed: other, seedHash }, ids, await drawOrder(other, ids))).toBe(false);
  });

  it('puts every participant first about equally often', async () => {
    const ids = ['a', 'b', 'c', 'd'];
    const firsts = new Map<string, number>();
    for (let i = 0; i < 800; i++) {
      const [first] = await drawOrder(newSeed(), ids);
      firsts.set(first!, (firsts.get(first!) ?? 0) + 1);
    }
    // Expected 200 each; bounds are ~6 standard deviations.
    for (const id of ids) expect(firsts.get(id)).toBeGreaterThan(130);
    for (const id of ids) expect(firsts.get(id)).toBeLessThan(270);
  });
});
