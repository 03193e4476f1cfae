import { Hono } from 'hono';
import { z } from 'zod';
import { readJsonBody, parseWith } from '../../lib/http';
import { apiKeyAuth } from './api-key-auth';
import type { WebhookDispatcher } from './webhook-dispatcher';
import { EVENT_TYPES, faultsSchema, type Faults } from './faults';
import type { Payment } from './model';
import type { PaymentService } from './payments';
import { createPaymentSchema, readOptionalJsonBody, refundSchema, requireIdempotencyKey } from './schemas';

export type ApiRoutesDeps = {
  apiKey: string;
  service: PaymentService;
  dispatcher: WebhookDispatcher;
  faults: { get(): Faults; set(faults: Faults): void };
  sleep: (ms: number) => Promise<void>;
};

const referenceQuery = z.object({ reference: z.string().min(1).max(255) });
/** Without `reference`: the listing, for reconciliation (every session the gateway saw). */
const listQuery = z
  .object({
    status: z.enum(['pending', 'succeeded', 'failed', 'expired', 'refunded']).optional(),
    startingAfter: z.string().min(1).max(64).optional(),
    limit: z.coerce.number().int().min(1).max(1000).optional(),
  })
  .strict();
const eventsQuery = z.object({
  paymentId: z.string().min(1).max(64).optional(),
  type: z.enum(EVENT_TYPES).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
});

/** The server-to-server API under `/v1`, all behind the API key. */
export function createApiRoutes(deps: ApiRoutesDeps): Hono {
  const { service, dispatcher, faults, sleep } = deps;
  const api = new Hono();
  api.use('*', apiKeyAuth({ apiKey: deps.apiKey }));

  const queryDelay = async (payment: Payment | null) => {
    const ms = service.faultsFor(payment).queryDelayMs;
    if (ms > 0) await sleep(ms);
  };

  api.post('/payments', async (c) => {
    const key = requireIdempotencyKey(c);
    const input = await readJsonBody(c, createPaymentSchema);
    const result = service.create(key, input, c.req.header('traceparent') ?? null);
    if (result.replayed) c.header('Idempotent-Replayed', 'true');
    return c.json(result.body, result.status);
  });

  api.get('/payments', async (c) => {
    const query = c.req.query();
    if (query.reference === undefined) {
      const filter = parseWith(listQuery, query);
      const page = service.list({
        limit: filter.limit ?? 100,
        ...(filter.status ? { status: filter.status } : {}),
        ...(filter.startingAfter ? { after: filter.startingAfter } : {}),
      });
      await queryDelay(page.data[0] ?? null);
      return c.json({ data: page.data.map((p) => service.view(p)), hasMore: page.hasMore });
    }
    const { reference } = parseWith(referenceQuery, query);
    const found = service.findByReference(reference);
    await queryDelay(found[0] ?? null);
    return c.json({ data: found.map((p) => service.view(p)) });
  });

  api.get('/payments/:id', async (c) => {
    const payment = service.get(c.req.param('id'));
    await queryDelay(payment);
    // Read after the delay: a slow answer shows the state at the time it is sent.
    return c.json(service.view(service.get(payment.id)));
  });

  api.post('/payments/:id/approve', (c) => c.json(service.view(service.approve(c.req.param('id')))));
  api.post('/payments/:id/decline', (c) => c.json(service.view(service.decline(c.req.param('id')))));

  api.post('/payments/:id/refunds', async (c) => {
    const id = c.req.param('id');
    const key = requireIdempotencyKey(c);
    const input = await readOptionalJsonBody(c, refundSchema);
    const result = service.refund(id, key, input);
    if (result.replayed) c.header('Idempotent-Replayed', 'true');
    return c.json(result.body, result.status);
  });

  api.get('/payments/:id/faults', (c) => c.json(service.get(c.req.param('id')).faults ?? {}));
  api.put('/payments/:id/faults', async (c) => {
    const id = c.req.param('id');
    const next = await readJsonBody(c, faultsSchema);
    return c.json(service.setFaults(id, next).faults ?? {});
  });

  api.get('/faults', (c) => c.json(faults.get()));
  api.put('/faults', async (c) => {
    faults.set(await readJsonBody(c, faultsSchema));
    return c.json(faults.get());
  });
  api.delete('/faults', (c) => {
    faults.set({});
    return c.json(faults.get());
  });

  api.get('/events', (c) => {
    const filter = parseWith(eventsQuery, c.req.query());
    return c.json({ data: dispatcher.records(filter), stats: dispatcher.stats() });
  });

  return api;
}
