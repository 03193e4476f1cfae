/**
 * Stateless proof-of-work challenges for the join. A challenge is plain text,
 * `v2.<showtimeId>.<difficulty>.<expiresAtMs>.<random>.<client>.<mac>`, where the MAC
 * (HMAC-SHA-256 under the edge's secret) makes every field unforgeable; nothing is stored
 * until a solution is spent. `<client>` is a digest of the client address and the customer
 * the challenge was issued to: a challenge solved cheaply from one address (or bought from
 * a farm of solvers) does not let another address or customer in. A solution is a nonce such that SHA-256 of the UTF-8 text `<challenge>:<nonce>`
 * starts with at least `difficulty` zero bits: checking it costs one hash (plus the MAC), and
 * finding it costs about 2^difficulty hashes. WebCrypto only, so it runs on Workers too.
 */

export const POW_CHALLENGE_HEADER = 'x-pow-challenge';
export const POW_NONCE_HEADER = 'x-pow-nonce';

const CHALLENGE =
  /^v2\.(\d{1,15})\.(\d{1,2})\.(\d{1,15})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;
const NONCE = /^[A-Za-z0-9_-]{1,64}$/;

const encoder = new TextEncoder();

function base64url(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Leading zero bits of a digest. */
export function leadingZeroBits(digest: Uint8Array): number {
  let bits = 0;
  for (const byte of digest) {
    if (byte === 0) {
      bits += 8;
      continue;
    }
    return bits + Math.clz32(byte) - 24;
  }
  return bits;
}

export type PowFailure = 'malformed' | 'forged' | 'wrong_showtime' | 'wrong_client' | 'expired' | 'too_weak';

/** Who a challenge is issued to, and who may spend it: the same address and customer. */
export interface PowClient {
  address: string | null;
  customerId: string;
}

export type PowVerdict =
  /** `bits`: the leading zero bits the solution actually has (at least `difficulty`). */
  { ok: true; id: string; difficulty: number; bits: number; expiresAtMs: number } | { ok: false; reason: PowFailure };

export interface PowChallengeOptions {
  /** Shared by every edge process, so a challenge from one is accepted by another. */
  secret: string;
  ttlMs: number;
  now?: () => number;
}

export function createPowChallenges(options: PowChallengeOptions) {
  const now = options.now ?? Date.now;
  const key = crypto.subtle.importKey(
    'raw',
    encoder.encode(`wr-pow/v1\n${options.secret}`),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign', 'verify'],
  );
  const mac = async (payload: string) =>
    base64url(new Uint8Array(await crypto.subtle.sign('HMAC', await key, encoder.encode(payload))));
  // 16 bytes of SHA-256 of the pair: compared, never reversed (no address in the challenge).
  const clientTag = async (client: PowClient) =>
    base64url(
      new Uint8Array(
        await crypto.subtle.digest('SHA-256', encoder.encode(`${client.address ?? '-'}\n${client.customerId}`)),
      ).slice(0, 16),
    );

  return {
    ttlMs: options.ttlMs,

    async issue(showtimeId: string, difficulty: number, client: PowClient): Promise<string> {
      const random = base64url(crypto.getRandomValues(new Uint8Array(16)));
      const payload = `v2.${showtimeId}.${difficulty}.${now() + options.ttlMs}.${random}.${await clientTag(client)}`;
      return `${payload}.${await mac(payload)}`;
    },

    /** Checks a submitted solution; spending it (replay refusal) is the caller's second step. */
    async verify(challenge: string, nonce: string, showtimeId: string, client: PowClient): Promise<PowVerdict> {
      const match = CHALLENGE.exec(challenge);
      if (!match || !NONCE.test(nonce)) return { ok: false, reason: 'malformed' };
      const [, forShowtime, difficultyText, expiresText, random, forClient, signature] = match;
      const payload = challenge.slice(0, challenge.length - signature!.length - 1);
      const expected = await mac(payload);
      let difference = 0;
      for (let i = 0; i < expected.length; i++) difference |= expected.charCodeAt(i) ^ signature!.charCodeAt(i);
      if (difference !== 0) return { ok: false, reason: 'forged' };
      if (forShowtime !== showtimeId) return { ok: false, reason: 'wrong_showtime' };
      if (forClient !== (await clientTag(client))) return { ok: false, reason: 'wrong_client' };
      const expiresAtMs = Number(expiresText);
      if (expiresAtMs <= now()) return { ok: false, reason: 'expired' };
      const difficulty = Number(difficultyText);
      const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(`${challenge}:${nonce}`)));
      const bits = leadingZeroBits(digest);
      if (bits < difficulty) return { ok: false, reason: 'too_weak' };
      return { ok: true, id: random!, difficulty, bits, expiresAtMs };
    },
  };
}

export type PowChallenges = ReturnType<typeof createPowChallenges>;
