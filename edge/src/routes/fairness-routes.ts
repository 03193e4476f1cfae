/**
 * Fairness anyone can check: the receipt keys (JWKS) and a showtime's admission log, which the
 * core publishes (the head live; the whole log, salt and seed once the sale has ended).
 * No token: a journalist with no account may verify a sale.
 */
import { Hono } from 'hono';
import { notFound } from '../../../lib/errors';
import type { ReceiptSigner } from '../../../lib/fairness-receipt';
import type { CoreClient } from '../core-client';
import { SHOWTIME_ID, type EdgeEnv } from '../http-context';

export function fairnessRoutes(deps: { core: CoreClient; receipts: ReceiptSigner }) {
  const app = new Hono<EdgeEnv>();

  app.get('/fairness/keys', (c) => {
    c.header('Cache-Control', 'public, max-age=300');
    return c.json(deps.receipts.jwks());
  });

  app.get('/showtimes/:id/fairness', async (c) => {
    const id = c.req.param('id');
    if (!SHOWTIME_ID.test(id)) throw notFound('SHOWTIME_NOT_FOUND', 'Unknown showtime');
    return deps.core.forward({
      method: 'GET',
      path: `/showtimes/${id}/fairness`,
      headers: new Headers({ accept: 'application/json' }),
      body: null,
      requestId: c.get('requestId'),
      clientAddress: null,
      signal: c.req.raw.signal,
      caller: null,
    });
  });

  return app;
}
