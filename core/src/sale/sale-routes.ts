/**
 * Operator routes of sale control, under /admin behind the admin token. The edge's operator
 * API forwards here and then brings Redis up to date; the edge and the queue ticker read
 * GET /admin/rooms to restore rooms Redis lost or holds an older copy of.
 */
import { getConnInfo } from '@hono/node-server/conninfo';
import { Hono, type Context } from 'hono';
import { canonicalAddress } from '../../../lib/ip-address';
import { z } from 'zod';
import { notFound } from '../../../lib/errors';
import { parseWith, readJsonBody, singleQueryValue } from '../../../lib/http';
import { roomUpdateSchema } from '../../../queue/src/room-update';
import { requireAdminToken } from '../http/auth';
import { showtimeIdParam } from '../http/params';
import { isValidCustomerId } from '../../../lib/customer-id';
import type { Operator, SaleControlService } from './sale-control';

const OPERATOR = /^[\w .@:-]{1,64}$/;
const SOURCE = /^[0-9A-Fa-f:.]{1,64}$/;
const auditQuery = z.object({ limit: z.coerce.number().int().min(1).max(1000).default(200) });
const customerId = z.string().refine(isValidCustomerId, 'a customer id: 1-128 of [A-Za-z0-9_.:@-]');
export const turnSchema = z
  .object({
    customerId,
    ticket: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    expiresAtMs: z.number().int().positive().max(8.64e15),
  })
  .strict();
export const endTurnSchema = z
  .object({
    customerId,
    /**
     * Only turns granted at or before this moment end (an edge retrying a leave the core missed
     * must not end a turn the buyer has been given since).
     */
    grantedBefore: z.iso.datetime({ offset: true }).optional(),
  })
  .strict();

/**
 * Who made the change: the edge names the signed-in operator, how they signed in
 * (X-Operator-Via: console or token) and their address; a caller that names nobody is recorded
 * as the admin token, from the address it called from.
 */
export function operatorOf(c: Context): Operator {
  const actor = c.req.header('x-operator');
  const source = c.req.header('x-operator-source') ?? peerAddress(c);
  return {
    actor: actor && OPERATOR.test(actor) ? actor : 'admin-token',
    actorVia: c.req.header('x-operator-via') === 'console' ? 'console' : 'token',
    source: source && SOURCE.test(source) ? source : null,
  };
}

/** The socket's peer on Node (none under app.request in tests). */
function peerAddress(c: Context): string | null {
  try {
    const address = getConnInfo(c).remote.address;
    return address ? (canonicalAddress(address) ?? null) : null;
  } catch {
    return null;
  }
}

export function saleControlRoutes(deps: { sale: SaleControlService; adminToken: string }) {
  const app = new Hono();
  app.use('*', requireAdminToken(deps.adminToken));

  app.get('/rooms', async (c) => c.json(await deps.sale.listCurrent()));

  app.get('/showtimes/:showtimeId/room', async (c) => {
    const control = await deps.sale.readForRestore(showtimeIdParam(c.req.param('showtimeId')));
    if (!control) throw notFound('SHOWTIME_NOT_FOUND', 'No such showtime');
    return c.json(control);
  });

  app.put('/showtimes/:showtimeId/room', async (c) => {
    const showtimeId = showtimeIdParam(c.req.param('showtimeId'));
    const update = await readJsonBody(c, roomUpdateSchema);
    return c.json(await deps.sale.change(showtimeId, { update }, operatorOf(c)));
  });

  // The turn ledger: the edge records each admission, and each leave, as it happens.
  app.post('/showtimes/:showtimeId/turns', async (c) => {
    const showtimeId = showtimeIdParam(c.req.param('showtimeId'));
    const turn = await readJsonBody(c, turnSchema);
    if (!(await deps.sale.recordTurn(showtimeId, turn))) throw notFound('SHOWTIME_NOT_FOUND', 'No such showtime');
    return c.body(null, 204);
  });

  app.post('/showtimes/:showtimeId/turns/end', async (c) => {
    const showtimeId = showtimeIdParam(c.req.param('showtimeId'));
    const { customerId: customer, grantedBefore } = await readJsonBody(c, endTurnSchema);
    return c.json({
      ended: await deps.sale.endTurns(showtimeId, customer, grantedBefore ? new Date(grantedBefore) : null),
    });
  });

  app.get('/showtimes/:showtimeId/room/audit', async (c) => {
    const showtimeId = showtimeIdParam(c.req.param('showtimeId'));
    // A limit that is not one (limit=abc, limit=0, twice) is refused, not quietly replaced.
    const { limit } = parseWith(auditQuery, { limit: singleQueryValue(c, 'limit') });
    if (!(await deps.sale.read(showtimeId))) throw notFound('SHOWTIME_NOT_FOUND', 'No such showtime');
    return c.json({ showtimeId: String(showtimeId), entries: await deps.sale.audit(showtimeId, limit) });
  });

  return app;
}
