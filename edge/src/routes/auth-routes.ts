/** Demo login (development) and the JWKS the edge's tokens are verified with. */
import { Hono, type Context } from 'hono';
import { setCookie } from 'hono/cookie';
import { demoLoginRequest } from '../../../lib/api-schemas';
import { AppError, notFound } from '../../../lib/errors';
import { parseWith, requireJsonContentType } from '../../../lib/http';
import { parseSafeJson } from '../../../lib/json-guard';
import type { TokenKeyMaterial } from '../../../lib/token-keys';
import { cookieNames, isHttps, type EdgeEnv } from '../http-context';
import type { GuardStore } from '../state/guard-store';
import type { CustomerTokens } from '../tokens/customer-token';

export interface AuthRouteDeps {
  customerTokens: CustomerTokens;
  tokenKeys: TokenKeyMaterial;
  guardStore: GuardStore;
  clientAddress: (c: Context) => string | null;
  /** Demo identities one client address may mint per minute. */
  demoLoginPerMinute: number;
}

export function authRoutes(deps: AuthRouteDeps) {
  const app = new Hono<EdgeEnv>();

  // The server picks the id, always: a body naming one (someone else's) is ignored, so a
  // demo login can never hand out another customer's identity. Identities cost something:
  // a few per minute per address, counted across every edge process.
  app.post('/api/auth/demo', async (c) => {
    if (!deps.customerTokens.demoLogin) throw notFound('ROUTE_NOT_FOUND', 'Demo login is disabled');
    // The body is optional ({}); one that is sent is held to the same rules as any JSON body
    // (media type, syntax, depth, text) before it costs the address an identity.
    const text = await c.req.text();
    if (text.trim() !== '') {
      requireJsonContentType(c);
      parseWith(demoLoginRequest, parseSafeJson(text));
    }
    const address = deps.clientAddress(c) ?? 'unknown';
    const used = await deps.guardStore.hit(`demo-login:${address}`, 60_000);
    if (used > deps.demoLoginPerMinute) {
      throw new AppError('RATE_LIMITED', 'Too many demo logins from this address; wait a minute', {
        retryAfterSeconds: 60,
      });
    }
    const customerId = `demo-${crypto.randomUUID().replace(/-/g, '').slice(0, 20)}`;
    const token = await deps.customerTokens.signDemo(customerId);
    setCookie(c, cookieNames.customer, token, {
      httpOnly: true,
      sameSite: 'Lax',
      secure: isHttps(c),
      path: '/',
      maxAge: 12 * 3600,
    });
    c.header('Cache-Control', 'no-store');
    return c.json({ token, customerId });
  });

  // Public keys only: the core and anyone else can verify the edge's tokens by kid.
  app.get('/.well-known/jwks.json', (c) => {
    c.header('Cache-Control', 'public, max-age=300');
    return c.json(deps.tokenKeys.publicJwks);
  });

  return app;
}
