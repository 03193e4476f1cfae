/**
 * Fairness anyone can check: the receipt keys (JWKS) and a showtime's admission log, which the
 * core publishes (the head live; the whole log, salt and seed once the sale has ended).
 * No token: a journalist with no account may verify a sale.
 */
import { Hono } from 'hono';
import { notFound, unavailable } from '../../../lib/errors';
import { CORE_RETRY_AFTER_SECONDS } from '../core-client';
import type { ReceiptSigner } from '../../../lib/fairness-receipt';
import { SHOWTIME_ID, type EdgeEnv } from '../http-context';
import type { FairnessReader } from '../rooms/fairness-reader';

export function fairnessRoutes(deps: { logs: FairnessReader; receipts: ReceiptSigner }) {
  const app = new Hono<EdgeEnv>();

  app.get('/fairness/keys', (c) => {
    c.header('Cache-Control', 'public, max-age=300');
    return c.json(deps.receipts.jwks());
  });

  app.get('/showtimes/:id/fairness', async (c) => {
    const id = c.req.param('id');
    if (!SHOWTIME_ID.test(id)) throw notFound('SHOWTIME_NOT_FOUND', 'Unknown showtime');
    const answer = await deps.logs.read(id);
    if (answer.status === 404) throw notFound('SHOWTIME_NOT_FOUND', 'Unknown showtime');
    if (answer.status !== 200 || answer.body === null)
      throw unavailable(
        'CORE_UNAVAILABLE',
        'The seat service is not answering; try again shortly',
        CORE_RETRY_AFTER_SECONDS,
      );
    c.header('Cache-Control', 'public, max-age=1');
    return c.json(answer.body as object);
  });

  return app;
}
