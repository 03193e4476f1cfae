/** Demo login (development) and the JWKS the edge's tokens are verified with. */
import { Hono } from 'hono';
import { z } from 'zod';
import { notFound } from '../../../lib/errors';
import { readJsonBody } from '../../../lib/http';
import type { TokenKeyMaterial } from '../../../lib/token-keys';
import { cookieNames, isHttps, type EdgeEnv } from '../http-context';
import { setCookie } from 'hono/cookie';
import { CUSTOMER_ID, type CustomerTokens } from '../tokens/customer-token';

const demoLoginSchema = z
  .object({ customerId: z.string().regex(CUSTOMER_ID, 'customerId must be 1-128 of [A-Za-z0-9_.:@-]').optional() })
  .strict();

export function authRoutes(deps: { customerTokens: CustomerTokens; tokenKeys: TokenKeyMaterial }) {
  const app = new Hono<EdgeEnv>();

  app.post('/api/auth/demo', async (c) => {
    if (!deps.customerTokens.demoLogin) throw notFound('ROUTE_NOT_FOUND', 'Demo login is disabled');
    const hasBody = (c.req.header('content-length') ?? '0') !== '0' || c.req.header('content-type') !== undefined;
    const body = hasBody ? await readJsonBody(c, demoLoginSchema) : {};
    const customerId = body.customerId ?? `demo-${crypto.randomUUID().slice(0, 12)}`;
    const token = await deps.customerTokens.signDemo(customerId);
    setCookie(c, cookieNames.customer, token, { httpOnly: true, sameSite: 'Lax', secure: isHttps(c), path: '/', maxAge: 12 * 3600 });
    return c.json({ token, customerId });
  });

  // Public keys only: the core and anyone else can verify the edge's tokens by kid.
  app.get('/.well-known/jwks.json', (c) => {
    c.header('Cache-Control', 'public, max-age=300');
    return c.json(deps.tokenKeys.publicJwks);
  });

  return app;
}
