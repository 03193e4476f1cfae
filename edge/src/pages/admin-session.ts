/**
 * Operator console sessions, kept on the server (the guard store: Redis, or memory when the
 * stack is embedded). Signing in with the admin token creates a session under a random id,
 * sent as an HttpOnly, SameSite=Strict cookie, with a server-side expiry; signing out
 * deletes it, so a copied cookie is dead after logout; a new sign-in always gets a new id
 * (and ends the session the browser had). Each session carries a CSRF token the console's
 * forms send back, and a tag of the admin token it was opened with: rotating ADMIN_TOKEN
 * ends every console session. Writes authenticated by the cookie must also carry
 * `X-Console: 1`, which a cross-site form cannot set.
 */
import type { GuardStore } from '../state/guard-store';

export const ADMIN_COOKIE = 'wr_admin';
export const CONSOLE_HEADER = 'x-console';
export const ADMIN_SESSION_SECONDS = 8 * 3600;

/** Who operates: on the Hono context as `operator` for every authenticated operator request. */
export interface Operator {
  /** The name given at sign-in, "console" without one, or "admin-token" for API callers. */
  name: string;
  /** The client address of this request. */
  address: string;
  via: 'console' | 'token';
}

export interface ConsoleSession {
  operator: string;
  /** Where the operator signed in from. */
  address: string;
  csrf: string;
  tokenTag: string;
  createdAtMs: number;
}

async function sha256(value: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(value)));
}

const base64url = (bytes: Uint8Array) => {
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
};

/** Compares digests, so the time taken says nothing about how much matched. */
export async function sameSecret(given: string, expected: string): Promise<boolean> {
  const [a, b] = await Promise.all([sha256(given), sha256(expected)]);
  let difference = a.length ^ b.length;
  for (let i = 0; i < a.length && i < b.length; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}

export const randomToken = () => base64url(crypto.getRandomValues(new Uint8Array(32)));

const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;
const OPERATOR_NAME = /^[\w .@:-]{1,64}$/;
export const cleanOperatorName = (name: string | undefined) =>
  name && OPERATOR_NAME.test(name.trim()) ? name.trim() : null;

export function createConsoleSessions(options: { store: GuardStore; adminToken: string; ttlMs?: number }) {
  const ttlMs = options.ttlMs ?? ADMIN_SESSION_SECONDS * 1000;
  // Sessions are stored under a digest of their id: reading the store does not yield cookies.
  const keyOf = async (id: string) => `console:${base64url(await sha256(id))}`;
  const tokenTag = sha256(`wr-admin-console/v2\n${options.adminToken}`).then(base64url);

  return {
    ttlMs,
    async create(operator: string | null, address: string): Promise<{ id: string; session: ConsoleSession }> {
      const id = randomToken();
      const session: ConsoleSession = {
        operator: operator ?? 'console',
        address,
        csrf: randomToken(),
        tokenTag: await tokenTag,
        createdAtMs: Date.now(),
      };
      await options.store.put(await keyOf(id), JSON.stringify(session), ttlMs);
      return { id, session };
    },
    /** The live session of a cookie value, or null (unknown, expired, revoked, other admin token). */
    async find(id: string | undefined): Promise<ConsoleSession | null> {
      if (!id || !SESSION_ID.test(id)) return null;
      const raw = await options.store.get(await keyOf(id));
      if (!raw) return null;
      const session = JSON.parse(raw) as ConsoleSession;
      return session.tokenTag === (await tokenTag) ? session : null;
    },
    async revoke(id: string | undefined): Promise<void> {
      if (id && SESSION_ID.test(id)) await options.store.delete(await keyOf(id));
    },
  };
}

export type ConsoleSessions = ReturnType<typeof createConsoleSessions>;
