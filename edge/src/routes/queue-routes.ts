/**
 * Join, poll and leave. The customer token (Bearer, or the customer cookie) identifies the
 * buyer on join and leave; the queue token (X-Queue-Token, or the showtime's cookie) on
 * poll. Both are verified locally and cached; only the room itself needs Redis.
 */
import { Hono, type Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { forbidden, notFound, unauthorized } from '../../../lib/errors';
import type { FloodLimiter } from '../limits/flood-limiter';
import type { EdgeMetrics } from '../metrics';
import { floodLimit } from '../middleware/flood-limit';
import { queueAnswerBody, type QueueAnswer, type RoomGateway } from '../rooms/room-gateway';
import { bearerToken, cookieNames, isHttps, SHOWTIME_ID, type EdgeEnv } from '../http-context';
import type { CustomerTokens } from '../tokens/customer-token';
import type { QueueTokens } from '../tokens/queue-token';
import type { PowGate } from '../pow/pow-gate';
import type { ReceiptSigner } from '../../../lib/fairness-receipt';
import { signJoinReceipt } from '../rooms/join-receipt';

export interface QueueRouteDeps {
  rooms: RoomGateway;
  customerTokens: CustomerTokens;
  queueTokens: QueueTokens;
  receipts: ReceiptSigner;
  floodLimiter: FloodLimiter;
  clientAddress: (c: Context) => string | null;
  metrics: EdgeMetrics;
  /** Proof of work at join (pow/pow-gate.ts): 428 with a challenge when the room asks for it. */
  pow: PowGate;
}

function showtimeParam(c: Context): string {
  const id = c.req.param('id') ?? '';
  if (!SHOWTIME_ID.test(id)) throw notFound('SHOWTIME_NOT_FOUND', 'Unknown showtime');
  return id;
}

async function customerFrom(c: Context, tokens: CustomerTokens): Promise<string> {
  const token = bearerToken(c) ?? getCookie(c, cookieNames.customer);
  if (!token) throw unauthorized('MISSING_TOKEN', 'Send the customer token as Authorization: Bearer <token>');
  return tokens.verify(token);
}

function setTokenCookie(c: Context, name: string, value: string, maxAgeSeconds: number) {
  setCookie(c, name, value, {
    httpOnly: true,
    sameSite: 'Lax',
    secure: isHttps(c),
    path: '/',
    maxAge: Math.max(1, maxAgeSeconds),
  });
}

export function queueRoutes(deps: QueueRouteDeps) {
  const app = new Hono<EdgeEnv>();
  const limit = (name: string) =>
    floodLimit({ limiter: deps.floodLimiter, clientAddress: deps.clientAddress, metrics: deps.metrics, name });

  /** The contract's body, the queue token when it is new or its ticket changed, cookies. */
  async function respond(
    c: Context,
    showtimeId: string,
    customerId: string,
    answer: QueueAnswer,
    currentTicket: number | null,
    receipts: ReceiptSigner | null = null,
  ) {
    const body = queueAnswerBody(answer);
    const terminal = answer.state === 'sold_out' || answer.state === 'closed';
    if (receipts && !terminal) body.receipt = await signJoinReceipt(receipts, showtimeId, customerId, answer);
    if (!terminal && answer.ticket !== currentTicket) {
      body.queueToken = await deps.queueTokens.sign({ customerId, showtimeId, ticket: answer.ticket });
      setTokenCookie(
        c,
        cookieNames.queue(showtimeId),
        body.queueToken as string,
        Math.floor(deps.queueTokens.ttlMs / 1000),
      );
    }
    if (answer.accessToken) {
      body.accessToken = answer.accessToken;
      body.sessionExpiresAt = answer.sessionExpiresAt;
      const ttlSeconds = Math.floor((Date.parse(answer.sessionExpiresAt ?? '') - Date.now()) / 1000);
      setTokenCookie(c, cookieNames.access(showtimeId), answer.accessToken, ttlSeconds);
    }
    c.header('Cache-Control', 'no-store');
    return c.json(body);
  }

  app.post('/showtimes/:id/queue', limit('join'), async (c) => {
    const showtimeId = showtimeParam(c);
    const customerId = await customerFrom(c, deps.customerTokens);
    const address = deps.clientAddress(c);
    const refused = await deps.pow.check(c, showtimeId, { address, customerId });
    if (refused) return refused;
    const answer = await deps.rooms.join(showtimeId, customerId, address);
    return respond(c, showtimeId, customerId, answer, null, deps.receipts);
  });

  app.get('/showtimes/:id/queue', limit('poll'), async (c) => {
    const showtimeId = showtimeParam(c);
    const token = c.req.header('x-queue-token') ?? getCookie(c, cookieNames.queue(showtimeId));
    if (!token) throw unauthorized('MISSING_TOKEN', 'Send the queue token as X-Queue-Token');
    const claims = await deps.queueTokens.verify(token);
    if (claims.showtimeId !== showtimeId)
      throw forbidden('WRONG_SHOWTIME', 'This queue token was issued for another showtime');
    const customerToken = bearerToken(c);
    if (customerToken && (await deps.customerTokens.verify(customerToken)) !== claims.customerId) {
      throw forbidden('NOT_YOUR_TOKEN', 'This queue token belongs to another customer');
    }
    const answer = await deps.rooms.poll(showtimeId, claims.customerId, claims.ticket);
    return respond(c, showtimeId, claims.customerId, answer, claims.ticket);
  });

  app.delete('/showtimes/:id/queue', limit('join'), async (c) => {
    const showtimeId = showtimeParam(c);
    const customerId = await customerFrom(c, deps.customerTokens);
    const removed = await deps.rooms.leave(showtimeId, customerId);
    setCookie(c, cookieNames.queue(showtimeId), '', { path: '/', maxAge: 0 });
    return c.json({ state: 'left', removed });
  });

  return app;
}
