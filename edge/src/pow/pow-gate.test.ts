import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createMemoryGuardStore } from '../state/guard-store';
import { createPowChallenges, leadingZeroBits, type PowChallenges, type PowClient } from './pow-challenge';
import { createPowGate, POW_GATE_MAX_BITS, type RoomPowSettings } from './pow-gate';
import { createPowGovernor, type PowGovernor } from './pow-governor';
import { solvePow } from './pow-solve-node';

const SHOW = '42';
const A: PowClient = { address: '203.0.113.1', customerId: 'alice' };
const B: PowClient = { address: '198.51.100.2', customerId: 'bob' };

/** A gate whose address threshold is 3 joins a minute, base 4 bits, ceiling 7. */
function gateWith(
  wrap: (real: PowChallenges) => PowChallenges = (real) => real,
  settings: RoomPowSettings = { powDifficulty: 4, powMaxDifficulty: 7 },
  governor: PowGovernor = createPowGovernor({ showtimeJoinsPerSecond: 1e9, addressJoinsPerMinute: 3 }),
  latestOnly = true,
) {
  const challenges = wrap(createPowChallenges({ secret: 'gate-test', ttlMs: 120_000 }));
  const gate = createPowGate({
    challenges,
    governor,
    guard: createMemoryGuardStore(),
    settingsOf: async () => settings,
    latestOnly,
  });
  /** One join: its 428 (challenge, difficulty, code), or 'in'. */
  const join = async (client: PowClient, solution?: { challenge: string; nonce: string }) => {
    const refused = await gate.decide(SHOW, client, solution?.challenge, solution?.nonce);
    return refused ? (refused.body as { challenge: string; difficulty: number; error: { code: string } }) : 'in';
  };
  const solve = (refusal: Awaited<ReturnType<typeof join>>) => {
    if (refusal === 'in') throw new Error('expected a challenge');
    return { challenge: refusal.challenge, nonce: solvePow(refusal.challenge, refusal.difficulty).nonce };
  };
  return { join, solve };
}

/** A nonce whose hash has at least `min` but fewer than `below` zero bits (no lucky surplus). */
function solveBelow(challenge: string, min: number, below: number): string {
  for (let n = 0; ; n++) {
    const bits = leadingZeroBits(
      createHash('sha256')
        .update(`${challenge}:${n.toString(36)}`)
        .digest(),
    );
    if (bits >= min && bits < below) return n.toString(36);
  }
}

/** The three attacks; true where the gate let the attacker in. */
async function attacks(wrap?: (real: PowChallenges) => PowChallenges, latestOnly = true) {
  const raise = async (join: ReturnType<typeof gateWith>['join'], client: PowClient) => {
    let difficulty = 0;
    for (let i = 0; i < 10; i++) {
      const answer = await join(client);
      if (answer !== 'in') difficulty = answer.difficulty;
    }
    return difficulty;
  };
  const cheap = async (join: ReturnType<typeof gateWith>['join'], client: PowClient) => {
    const answer = await join(client);
    if (answer === 'in' || answer.difficulty !== 4) throw new Error('expected a 4-bit challenge');
    return { challenge: answer.challenge, nonce: solveBelow(answer.challenge, 4, 7) };
  };
  // 1. Cross-address: B (quiet, 4 bits) solves; A, whose difficulty rose to 7, spends it.
  const cross = gateWith(wrap, undefined, undefined, latestOnly);
  const fromB = await cheap(cross.join, B);
  const crossAddress = (await raise(cross.join, A)) === 7 && (await cross.join(A, fromB)) === 'in';
  // 2. Stale difficulty: A takes a 4-bit challenge while quiet, then its difficulty rises to 7.
  const stale = gateWith(wrap, undefined, undefined, latestOnly);
  const early = await cheap(stale.join, A);
  const staleDifficulty = (await raise(stale.join, A)) === 7 && (await stale.join(A, early)) === 'in';
  // 3. Customer swap: same address and price, another customer's solved challenge.
  const swap = gateWith(wrap, undefined, undefined, latestOnly);
  const forBob = await cheap(swap.join, { ...A, customerId: 'bob' });
  const customerSwap = (await swap.join(A, forBob)) === 'in';
  return { crossAddress, staleDifficulty, customerSwap };
}

describe("proof of work bound to the showtime, the address and the customer, at today's price", () => {
  it('refuses the cross-address reuse, the stale low difficulty and the customer swap', async () => {
    expect(await attacks()).toEqual({ crossAddress: false, staleDifficulty: false, customerSwap: false });
  });

  it('still lets the client the challenge was issued to in, at the current difficulty', async () => {
    const { join, solve } = gateWith();
    expect(await join(A, solve(await join(A)))).toBe('in');
  });

  it('never asks more than POW_GATE_MAX_BITS, whatever the room says', async () => {
    const { join } = gateWith(undefined, { powDifficulty: 32, powMaxDifficulty: 32 });
    expect(await join(A)).toMatchObject({ difficulty: POW_GATE_MAX_BITS });
    // The console's figure comes from the same governor, so it shows the price in force.
    expect(
      createPowGovernor({ showtimeJoinsPerSecond: 1e9, addressJoinsPerMinute: 3 }).showtimeLevel(SHOW, 32, 32)
        .difficulty,
    ).toBe(POW_GATE_MAX_BITS);
    // Broken variant: the old governor answered a room at base >= ceiling with its base as set.
    const real = createPowGovernor({ showtimeJoinsPerSecond: 1e9, addressJoinsPerMinute: 3 });
    const uncapped: PowGovernor = {
      ...real,
      level: (_s, _a, base) => ({ difficulty: base, base, ceiling: base, reason: 'base difficulty' }),
    };
    expect(await gateWith(undefined, { powDifficulty: 32, powMaxDifficulty: 32 }, uncapped).join(A)).toMatchObject({
      difficulty: 32,
    });
  });

  it('takes only the latest challenge of a client: a stockpile is worth one join, a replay none', async () => {
    for (const latestOnly of [true, false]) {
      // A steady price (no rise with the joins), so only the rule under test refuses.
      const steady = createPowGovernor({ showtimeJoinsPerSecond: 1e9, addressJoinsPerMinute: 1e9 });
      const { join, solve } = gateWith(undefined, undefined, steady, latestOnly);
      const pile = [solve(await join(A)), solve(await join(A)), solve(await join(A))];
      const first = await join(A, pile[0]);
      if (latestOnly) {
        // Superseded: and the refusal's fresh challenge is now the only one that counts.
        expect(first).toMatchObject({ error: { code: 'POW_INVALID' } });
        expect(await join(A, pile[2])).toMatchObject({ error: { code: 'POW_INVALID' } });
        const fresh = solve(await join(A));
        expect(await join(A, fresh)).toBe('in');
        expect(await join(A, fresh)).toMatchObject({ error: { code: 'POW_REUSED' } });
      } else {
        // Broken variant: every challenge of the pile lets a join in.
        expect([first, await join(A, pile[1]), await join(A, pile[2])]).toEqual(['in', 'in', 'in']);
      }
    }
  });

  describe('broken variants: the old behaviour lets each attack through', () => {
    // Each variant is shown with the latest-only rule off, which would also stop these replays.
    // Bound only to the showtime (the old challenge): every client looks like one.
    const unbound = (real: PowChallenges): PowChallenges => ({
      ...real,
      issue: (showtimeId, difficulty) => real.issue(showtimeId, difficulty, B),
      verify: (challenge, nonce, showtimeId) => real.verify(challenge, nonce, showtimeId, B),
    });
    // Trusts the difficulty printed on the challenge (the old check), not today's.
    const pricedAtIssue = (real: PowChallenges): PowChallenges => ({
      ...real,
      verify: async (...args) => {
        const verdict = await real.verify(...args);
        return verdict.ok ? { ...verdict, bits: Number.MAX_SAFE_INTEGER } : verdict;
      },
    });

    it('both together (the old gate) let all three in', async () => {
      expect(await attacks((real) => pricedAtIssue(unbound(real)), false)).toEqual({
        crossAddress: true,
        staleDifficulty: true,
        customerSwap: true,
      });
    });

    it('an unbound challenge alone lets the customer swap in', async () => {
      expect(await attacks(unbound, false)).toMatchObject({ customerSwap: true });
    });

    it("the challenge's own difficulty lets the stale low difficulty in", async () => {
      expect(await attacks(pricedAtIssue, false)).toMatchObject({ staleDifficulty: true });
    });
  });
});
