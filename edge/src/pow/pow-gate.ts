/**
 * The join's proof-of-work gate. When the room asks for work (its base difficulty, raised by
 * the governor under load), a join without a valid, unspent solution is answered 428 with
 * the usual error body plus `challenge` and `difficulty` at the top level; the client solves
 * it and sends the join again with X-Pow-Challenge and X-Pow-Nonce. A wrong, expired, forged
 * or reused solution gets a 428 with a fresh challenge and a code saying what was wrong.
 * A solution is spent with one SET NX in the guard store, so it works exactly once across
 * every edge process.
 *
 * A solution counts only for the showtime, client address and customer it was issued to
 * (pow-challenge.ts), and only if it proves at least the difficulty asked of that address on
 * that showtime now: a cheap challenge fetched earlier, or from a quieter address, is refused
 * once the price has risen. The difficulty is capped at POW_GATE_MAX_BITS, whatever the
 * room's settings say (pow-governor.ts): past it a browser works for tens of seconds, which
 * no waiting page can honestly call "a moment".
 */
import type { Context } from 'hono';
import { AppError, errorResponseBody } from '../../../lib/errors';
import type { GuardStore } from '../state/guard-store';
import {
  POW_CHALLENGE_HEADER,
  POW_NONCE_HEADER,
  type PowChallenges,
  type PowClient,
  type PowFailure,
} from './pow-challenge';
import type { PowGovernor, PowLevel } from './pow-governor';

export { POW_GATE_MAX_BITS } from './pow-governor';

export interface RoomPowSettings {
  powDifficulty: number;
  powMaxDifficulty: number;
}

export interface PowGateDeps {
  challenges: PowChallenges;
  governor: PowGovernor;
  guard: GuardStore;
  /** The room's settings as the edge last read them (snapshot cache); null for a room not created yet. */
  settingsOf: (showtimeId: string) => Promise<RoomPowSettings | null>;
  /** The same settings when they are at hand without waiting (read less than a second ago), else undefined. */
  settingsNow?: (showtimeId: string) => RoomPowSettings | undefined;
  onRefused?: (code: string) => void;
  /** Only a client's latest challenge is spendable (default); false only to show what it stops. */
  latestOnly?: boolean;
}

const failures: Record<PowFailure | 'reused' | 'missing' | 'outbid' | 'superseded', [string, string]> = {
  missing: [
    'POW_REQUIRED',
    'This room asks for a little proof of work before joining: solve the challenge and send the join again',
  ],
  malformed: ['POW_INVALID', 'The proof-of-work headers are malformed; solve the new challenge'],
  forged: ['POW_INVALID', 'That challenge was not issued by this waiting room; solve the new challenge'],
  wrong_showtime: ['POW_INVALID', 'That challenge was issued for another showtime; solve the new challenge'],
  expired: ['POW_EXPIRED', 'That challenge has expired; solve the new challenge'],
  wrong_client: ['POW_INVALID', 'That challenge was issued to another client or customer; solve the new challenge'],
  too_weak: ['POW_INVALID', 'That nonce does not solve the challenge; solve the new challenge'],
  outbid: ['POW_INVALID', 'More work is asked now than when that challenge was issued; solve the new challenge'],
  reused: ['POW_REUSED', 'That solution has been used already; solve the new challenge'],
  superseded: ['POW_INVALID', 'A newer challenge has been issued to you since that one; solve the new challenge'],
};

export interface PowRefusal {
  status: 428;
  body: Record<string, unknown>;
}

/** Where the id of the one challenge a client may spend on a showtime is kept. */
const liveKey = (showtimeId: string, client: PowClient) =>
  `pow-live:${showtimeId}:${client.address ?? '-'}:${client.customerId}`;

/** The random id inside a challenge (pow-challenge.ts: its fifth field). */
const challengeId = (challenge: string) => challenge.split('.')[4] ?? '';

export function createPowGate(deps: PowGateDeps) {
  const latestOnly = deps.latestOnly ?? true;
  async function levelOf(showtimeId: string, address: string | null): Promise<PowLevel> {
    return levelFor(showtimeId, address, await deps.settingsOf(showtimeId));
  }

  function levelFor(showtimeId: string, address: string | null, settings: RoomPowSettings | null): PowLevel {
    return deps.governor.level(showtimeId, address, settings?.powDifficulty ?? 0, settings?.powMaxDifficulty ?? 0);
  }

  /** The 428's body: the usual error body plus a fresh challenge and its difficulty. */
  async function refusal(
    showtimeId: string,
    client: PowClient,
    difficulty: number,
    failure: keyof typeof failures,
  ): Promise<PowRefusal> {
    const [code, message] = failures[failure];
    deps.onRefused?.(code);
    const challenge = await deps.challenges.issue(showtimeId, difficulty, client);
    // Only the latest challenge of a client stays spendable: challenges fetched in a row and
    // solved at leisure (a stockpile for the moment the line opens) are worth one join.
    if (latestOnly)
      await deps.guard.put(liveKey(showtimeId, client), challengeId(challenge), deps.challenges.ttlMs + 5_000);
    return { status: 428, body: { ...errorResponseBody(new AppError(428, code, message)), challenge, difficulty } };
  }

  /**
   * null: the join may go on; otherwise the 428 to answer (always with Cache-Control:
   * no-store). Free of any HTTP framework, so the Hono route and Node's fast join path
   * (node-fast-join.ts) decide alike.
   */
  async function decide(
    showtimeId: string,
    client: PowClient,
    challenge: string | undefined,
    nonce: string | undefined,
  ): Promise<PowRefusal | null> {
    const { address } = client;
    deps.governor.observe(showtimeId, address);
    // Every join asks: the settings read within the second are taken without a wait.
    const known = deps.settingsNow?.(showtimeId);
    const { difficulty } =
      known !== undefined ? levelFor(showtimeId, address, known) : await levelOf(showtimeId, address);
    if (difficulty <= 0) return null;
    if (!challenge || !nonce) return refusal(showtimeId, client, difficulty, 'missing');
    const verdict = await deps.challenges.verify(challenge, nonce, showtimeId, client);
    if (!verdict.ok) return refusal(showtimeId, client, difficulty, verdict.reason);
    // The price is today's for this address, not the one printed on the challenge: the work
    // actually proven must reach it (a lucky hash over a cheap challenge still counts).
    if (verdict.bits < difficulty) return refusal(showtimeId, client, difficulty, 'outbid');
    if (latestOnly && (await deps.guard.get(liveKey(showtimeId, client))) !== verdict.id)
      return refusal(showtimeId, client, difficulty, 'superseded');
    const fresh = await deps.guard.markOnce(
      `pow:${verdict.id}`,
      Math.max(1_000, verdict.expiresAtMs - Date.now() + 5_000),
    );
    if (!fresh) return refusal(showtimeId, client, difficulty, 'reused');
    return null;
  }

  return {
    levelOf,
    decide,

    /** null: the join may go on; otherwise the 428 to answer. */
    async check(c: Context, showtimeId: string, client: PowClient): Promise<Response | null> {
      const refused = await decide(
        showtimeId,
        client,
        c.req.header(POW_CHALLENGE_HEADER),
        c.req.header(POW_NONCE_HEADER),
      );
      if (!refused) return null;
      c.header('Cache-Control', 'no-store');
      return c.json(refused.body, 428);
    },
  };
}

export type PowGate = ReturnType<typeof createPowGate>;
