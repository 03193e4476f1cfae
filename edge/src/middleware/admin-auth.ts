import type { MiddlewareHandler } from 'hono';
import { unauthorized } from '../../../lib/errors';
import { bearerToken } from '../http-context';

async function sha256(value: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(value)));
}

/** Compares digests, so the time taken says nothing about how much of the token matched. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  let difference = a.length ^ b.length;
  for (let i = 0; i < a.length && i < b.length; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}

/** Operator routes: `Authorization: Bearer $ADMIN_TOKEN` (WebCrypto, so it runs on Workers). */
export function adminAuth(options: { adminToken: string }): MiddlewareHandler {
  const expected = sha256(options.adminToken);
  return async function adminAuthMiddleware(c, next) {
    const token = bearerToken(c);
    if (!token) throw unauthorized('MISSING_TOKEN', 'Send the admin token as Authorization: Bearer <token>');
    if (!sameBytes(await sha256(token), await expected)) throw unauthorized('INVALID_TOKEN', 'The admin token is not valid');
    await next();
  };
}
