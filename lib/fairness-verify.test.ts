/**
 * The verifier on logs built here with the chain's own functions (no servers): an honest log
 * verifies; each check catches what it is for (a drawn place moved, a rank rewritten, a buyer
 * let in ahead), and a line lost with Redis neither hides nor invents an inversion.
 */
import { describe, expect, it } from 'vitest';
import { buyerHash, entryHash, genesisHash, NO_BUYER, type LogEntry, type LogKind } from './fairness-chain';
import { drawOrder, newSeed, seedCommitment } from './fair-draw';
import { CannotVerify, verifyFairness } from './fairness-verify';

type Step = [LogKind, string, number, { drawIndex?: number; drawSize?: number }?];

async function publish(steps: Step[], options: { seed?: string } = {}) {
  const seed = options.seed ?? newSeed();
  const commitment = await seedCommitment(seed);
  const salt = 'ab'.repeat(32);
  const genesis = await genesisHash('7', commitment);
  let previous = genesis;
  const entries: LogEntry[] = [];
  for (const [i, [kind, who, rank, draw]] of steps.entries()) {
    const entry = {
      seq: i + 1,
      kind,
      buyerHash: kind === 'line_reset' ? NO_BUYER : await buyerHash(salt, who),
      rank,
      atMs: 1_000 + i,
      drawIndex: draw?.drawIndex ?? null,
      drawSize: draw?.drawSize ?? null,
    };
    previous = await entryHash(previous, entry);
    entries.push({ ...entry, hash: previous });
  }
  return {
    showtimeId: '7',
    saleState: 'closed',
    ended: true,
    commitment,
    genesis,
    head: { seq: entries.length, hash: previous },
    seed,
    salt,
    entries,
  };
}

const verdictOf = async (steps: Step[]) => {
  const result = await verifyFairness(await publish(steps));
  return {
    verdict: result.verdict,
    inversions: result.inversions,
    failed: result.checks.filter((c) => !c.ok).map((c) => c.id),
  };
};

describe('verifyFairness', () => {
  it('an honest line verifies; one buyer let in ahead of two waiting is two inversions', async () => {
    const line: Step[] = [
      ['joined', 'a', 1],
      ['joined', 'b', 2],
      ['joined', 'c', 3],
    ];
    expect(await verdictOf([...line, ['admitted', 'a', 1], ['admitted', 'b', 2], ['admitted', 'c', 3]])).toEqual({
      verdict: 'verified',
      inversions: 0,
      failed: [],
    });
    expect(await verdictOf([...line, ['admitted', 'c', 3], ['admitted', 'a', 1], ['admitted', 'b', 2]])).toEqual({
      verdict: 'failed',
      inversions: 2,
      failed: ['order'],
    });
  });

  it('passed over or gone is no inversion; coming back is', async () => {
    const steps: Step[] = [
      ['joined', 'a', 1],
      ['joined', 'b', 2],
      ['joined', 'c', 3],
      ['passed_over', 'a', 1],
      ['left', 'b', 2],
      ['admitted', 'c', 3],
      ['returned', 'a', 1],
      ['admitted', 'a', 1],
    ];
    expect(await verdictOf(steps)).toMatchObject({ verdict: 'verified', inversions: 0 });
  });

  it('a buyer moved ahead in the line shows a rank it never joined with, and overtakes from its own (broken variant of a line jump)', async () => {
    const steps: Step[] = [
      ['joined', 'a', 1],
      ['joined', 'b', 2],
      ['admitted', 'b', 0],
      ['admitted', 'a', 1],
    ];
    expect(await verdictOf(steps)).toMatchObject({ verdict: 'failed', inversions: 1, failed: ['ranks', 'order'] });
  });

  it("the draw's places are checked against the seed; one moved fails the draw check", async () => {
    const seed = newSeed();
    const order = await drawOrder(seed, ['0', '1', '2']);
    const drawn: Step[] = [0, 1, 2].map((index) => [
      'drawn',
      `p${index}`,
      10 + order.indexOf(String(index)) + 1,
      { drawIndex: index, drawSize: 3 },
    ]);
    const joins: Step[] = [0, 1, 2].map((index) => ['joined', `p${index}`, 0]);
    expect((await verifyFairness(await publish([...joins, ...drawn], { seed }))).verdict).toBe('verified');
    const moved = drawn.map(
      (step, i): Step => (i === 0 ? [step[0], step[1], step[2] === 11 ? 12 : 11, step[3]] : step),
    );
    const result = await verifyFairness(await publish([...joins, ...moved], { seed }));
    expect(result.checks.find((c) => c.id === 'draw')).toMatchObject({ ok: false });
  });

  it('a line lost with Redis: those in line before are not counted as waiting after; a restored turn keeps its rank', async () => {
    const steps: Step[] = [
      ['joined', 'a', 1],
      ['joined', 'b', 2],
      ['admitted', 'a', 1],
      ['line_reset', '', 0],
      ['joined', 'c', 1],
      ['joined', 'd', 3],
      ['admitted', 'd', 3],
      ['left', 'a', 1],
      ['admitted', 'c', 1],
    ];
    expect(await verdictOf(steps)).toMatchObject({ verdict: 'failed', inversions: 1 });
    expect(await verdictOf(steps.filter((s) => s[1] !== 'c'))).toMatchObject({ verdict: 'verified', inversions: 0 });
  });

  it('a sale not over, or not a log at all, cannot be verified (exit 2, not 1)', async () => {
    const live = { ...(await publish([['joined', 'a', 1]])), ended: false, entries: null, seed: null, salt: null };
    await expect(verifyFairness(live)).rejects.toBeInstanceOf(CannotVerify);
    await expect(verifyFairness({ hello: 'world' })).rejects.toBeInstanceOf(CannotVerify);
  });
});
