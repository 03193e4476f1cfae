import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signatures shared by the payment sandbox (signer) and the core (verifier).
 *
 * Header: `X-Signature: t=<unix s>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, with one `v1`
 * per secret during a rotation. The timestamp is inside the signed payload, so a captured
 * request cannot be replayed outside the tolerance window with a fresh `t`.
 */
export const SIGNATURE_HEADER = 'X-Signature';
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type SignatureFailure = 'missing' | 'malformed' | 'expired' | 'mismatch';
export type SignatureVerdict = { ok: true; timestamp: number } | { ok: false; reason: SignatureFailure };

const HEX_SHA256 = /^[0-9a-f]{64}$/;
const UNIX_SECONDS = /^\d{1,12}$/;
const MAX_HEADER_LENGTH = 4096;

/** Hex HMAC-SHA256 of `"<t>.<rawBody>"` keyed by one secret. */
export function computeSignature(rawBody: string, secret: string, timestampSeconds: number): string {
  return createHmac('sha256', secret).update(`${timestampSeconds}.${rawBody}`, 'utf8').digest('hex');
}

/** Builds the `X-Signature` header value: `t=…` then one `v1=…` per secret, in order. */
export function signWebhook(rawBody: string, secrets: string[], timestampSeconds: number): string {
  if (secrets.length === 0) throw new Error('signWebhook needs at least one secret');
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new Error('signWebhook needs a non-negative integer timestamp in seconds');
  }
  const parts = secrets.map((secret) => `v1=${computeSignature(rawBody, secret, timestampSeconds)}`);
  return [`t=${timestampSeconds}`, ...parts].join(',');
}

type ParsedHeader = { timestamp: number; signatures: string[] };

/**
 * Parses `t=…,v1=…[,v1=…]`. Unknown schemes (say a future `v2`) are ignored, like Stripe does,
 * so a signer can add one before verifiers know it; a header without any `v1` is malformed.
 */
export function parseSignatureHeader(header: string): ParsedHeader | null {
  if (header.length > MAX_HEADER_LENGTH) return null;
  let timestamp: number | null = null;
  const signatures: string[] = [];
  for (const rawItem of header.split(',')) {
    const item = rawItem.trim();
    const eq = item.indexOf('=');
    if (eq <= 0) return null;
    const key = item.slice(0, eq);
    const value = item.slice(eq + 1);
    if (key === 't') {
      if (timestamp !== null || !UNIX_SECONDS.test(value)) return null;
      timestamp = Number(value);
    } else if (key === 'v1') {
      const hex = value.toLowerCase();
      if (!HEX_SHA256.test(hex)) return null;
      signatures.push(hex);
    }
  }
  if (timestamp === null || signatures.length === 0) return null;
  return { timestamp, signatures };
}

/**
 * Verifies a webhook against every configured secret (old and new during a rotation).
 * The signature is checked before the time window, so `expired` is only ever reported for a
 * request that was authentic; comparisons are constant-time on equal-length buffers.
 */
export function verifyWebhookSignature(
  rawBody: string,
  header: string | undefined,
  secrets: string[],
  nowSeconds: number,
  toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
): SignatureVerdict {
  if (header === undefined || header.trim() === '') return { ok: false, reason: 'missing' };
  const parsed = parseSignatureHeader(header);
  if (!parsed) return { ok: false, reason: 'malformed' };

  let matched = false;
  for (const secret of secrets) {
    const expected = Buffer.from(computeSignature(rawBody, secret, parsed.timestamp), 'hex');
    for (const candidate of parsed.signatures) {
      // Both are 32 bytes: the parser only accepts 64 hex digits.
      if (timingSafeEqual(expected, Buffer.from(candidate, 'hex'))) matched = true;
    }
  }
  if (!matched) return { ok: false, reason: 'mismatch' };
  if (Math.abs(Math.floor(nowSeconds) - parsed.timestamp) > toleranceSeconds) {
    return { ok: false, reason: 'expired' };
  }
  return { ok: true, timestamp: parsed.timestamp };
}
