import type { MiddlewareHandler } from 'hono';
import { AppError } from '../../lib/errors';
import { respondWithError } from '../../lib/http';

export type ApiKeyAuthOptions = { apiKey: string };

/** Compares without an early exit, so timing does not tell how much of a guess was right. */
export function constantTimeEqual(a: string, b: string): boolean {
  const length = Math.max(a.length, b.length);
  let diff = a.length ^ b.length;
  for (let i = 0; i < length; i += 1) diff |= (a.charCodeAt(i) || 0) ^ (b.charCodeAt(i) || 0);
  return diff === 0;
}

/** Server-to-server calls carry `Authorization: Bearer <api key>`; anything else is a 401. */
export function apiKeyAuth(options: ApiKeyAuthOptions): MiddlewareHandler {
  return async function apiKeyAuth(c, next) {
    const header = c.req.header('authorization') ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match || !constantTimeEqual(match[1]!, options.apiKey)) {
      c.header('WWW-Authenticate', 'Bearer realm="payment-sandbox"');
      const message = header ? 'The API key is not valid' : 'Send Authorization: Bearer <API key>';
      return respondWithError(c, new AppError(401, 'UNAUTHORIZED', message));
    }
    await next();
  };
}
