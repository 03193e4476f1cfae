/**
 * The operator console's login. The operator types the admin token once; the edge answers
 * with an HttpOnly, SameSite=Strict cookie holding a digest of it (not the token), so page
 * script never sees either and an EventSource (which cannot send headers) still
 * authenticates. Rotating ADMIN_TOKEN ends every console session. Writes authenticated by
 * the cookie must also carry `X-Console: 1`: a cross-site form cannot set that header, so
 * together with SameSite=Strict no other site can make a logged-in browser change a room.
 */
export const ADMIN_COOKIE = 'wr_admin';
export const OPERATOR_COOKIE = 'wr_operator';
export const CONSOLE_HEADER = 'x-console';
export const ADMIN_SESSION_SECONDS = 8 * 3600;

async function sha256(value: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(value)));
}

/** Compares digests, so the time taken says nothing about how much matched. */
export async function sameSecret(given: string, expected: string): Promise<boolean> {
  const [a, b] = await Promise.all([sha256(given), sha256(expected)]);
  let difference = a.length ^ b.length;
  for (let i = 0; i < a.length && i < b.length; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}

/** The cookie's value: a digest of the admin token under a fixed label (base64url). */
export async function adminSessionValue(adminToken: string): Promise<string> {
  const digest = await sha256(`wr-admin-console/v1\n${adminToken}`);
  let text = '';
  for (const byte of digest) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

const OPERATOR_NAME = /^[\w .@:-]{1,64}$/;
export const cleanOperatorName = (name: string | undefined) => (name && OPERATOR_NAME.test(name.trim()) ? name.trim() : null);
