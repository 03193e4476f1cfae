/**
 * Node only: joins served straight on node:http, without the WHATWG Request (undici Request,
 * AbortSignal, header objects) and Response @hono/node-server builds for every POST. A join
 * carries no body and is the flash moment's request: that adapter work was the biggest share
 * of the main thread's time per join. The checks, their order and every answer are the Hono
 * route's (routes/queue-routes.ts, with the request-id, metrics, flood-limit and activity
 * middleware): flood limit, customer token (Bearer or cookie), proof of work, the join, the
 * queue token and cookies. edge/test/node-fast-join.test.ts runs the same scenarios through
 * both and compares the answers. A join with a body, a query string or an id that is not a
 * showtime's goes to the app, which answers it in full.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { generateCookie } from 'hono/cookie';
import { parse as parseCookies } from 'hono/utils/cookie';
import { AppError, errorResponseBody, isAppError, unauthorized } from '../../lib/errors';
import { bearerTokenOf, incomingRequestId } from '../../lib/http';
import type { EdgeLogger } from './app';
import { cookieNames } from './http-context';
import type { ReceiptSigner } from '../../lib/fairness-receipt';
import { signJoinReceipt } from './rooms/join-receipt';
import type { FloodLimiter } from './limits/flood-limiter';
import type { EdgeMetrics } from './metrics';
import { type ClientAddressing, clientAddressFrom, limitKeyOf } from './net/client-address';
import { clientGone } from './net/load-shedding';
import type { ShowtimeActivity } from './pages/showtime-activity';
import { POW_CHALLENGE_HEADER, POW_NONCE_HEADER } from './pow/pow-challenge';
import type { PowGate } from './pow/pow-gate';
import { queueAnswerBody, type QueueAnswer, type RoomGateway } from './rooms/room-gateway';
import type { CustomerTokens } from './tokens/customer-token';
import type { QueueTokens } from './tokens/queue-token';

const JOIN_PATH = /^\/api\/showtimes\/(\d{1,15})\/queue$/;
const ROUTE = '/api/showtimes/:id/queue';

export interface FastJoinDeps {
  rooms: RoomGateway;
  customerTokens: CustomerTokens;
  queueTokens: QueueTokens;
  receipts: ReceiptSigner;
  pow: PowGate;
  floodLimiter: FloodLimiter;
  metrics: EdgeMetrics;
  activity: ShowtimeActivity;
  logger: EdgeLogger;
  /** Trusted proxies in front of the edge (net/client-address.ts). */
  addressing: ClientAddressing;
}

type Listener = (request: IncomingMessage, response: ServerResponse) => unknown;
type Headers = string[];

const header = (request: IncomingMessage, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
};

export function fastJoinListener(deps: FastJoinDeps, next: Listener): Listener {
  const { metrics } = deps;
  const fast = metrics.fastJoins.child({});
  const answeredOk = metrics.httpRequests.child({ route: ROUTE, method: 'POST', status: '200' });
  const setCookie = (request: IncomingMessage, name: string, value: string, maxAgeSeconds: number) =>
    generateCookie(name, value, {
      httpOnly: true,
      sameSite: 'Lax',
      secure: (request.socket as TLSSocket).encrypted === true || request.headers['x-forwarded-proto'] === 'https',
      path: '/',
      maxAge: Math.max(1, maxAgeSeconds),
    });

  function send(response: ServerResponse, showtimeId: string, status: number, body: unknown, headers: Headers) {
    const text = JSON.stringify(body);
    response.writeHead(status, [
      'content-type',
      'application/json',
      'content-length',
      String(Buffer.byteLength(text)),
      ...headers,
    ]);
    response.end(text);
    if (status === 200) answeredOk.inc();
    else metrics.httpRequests.inc({ route: ROUTE, method: 'POST', status: String(status) });
    if (status === 429) deps.activity.record(showtimeId, 'rateLimited');
    fast.inc();
  }

  /** The join's answer: the contract's body, the new queue token, cookies (queue-routes.ts `respond`). */
  async function answerBody(
    request: IncomingMessage,
    showtimeId: string,
    customerId: string,
    answer: QueueAnswer,
    headers: Headers,
  ) {
    const body = queueAnswerBody(answer);
    if (answer.state !== 'sold_out' && answer.state !== 'closed') {
      body.receipt = await signJoinReceipt(deps.receipts, showtimeId, customerId, answer);
      const queueToken = await deps.queueTokens.sign({ customerId, showtimeId, ticket: answer.ticket });
      body.queueToken = queueToken;
      headers.push(
        'set-cookie',
        setCookie(request, cookieNames.queue(showtimeId), queueToken, Math.floor(deps.queueTokens.ttlMs / 1000)),
      );
    }
    if (answer.accessToken) {
      body.accessToken = answer.accessToken;
      body.sessionExpiresAt = answer.sessionExpiresAt;
      const ttlSeconds = Math.floor((Date.parse(answer.sessionExpiresAt ?? '') - Date.now()) / 1000);
      headers.push('set-cookie', setCookie(request, cookieNames.access(showtimeId), answer.accessToken, ttlSeconds));
    }
    headers.push('cache-control', 'no-store');
    return body;
  }

  async function join(request: IncomingMessage, response: ServerResponse, showtimeId: string) {
    const requestId = incomingRequestId(request.headers['x-request-id']) ?? randomUUID();
    const headers: Headers = ['x-request-id', requestId];
    try {
      const forwarded = deps.addressing.trust.proxies.size > 0 ? header(request, 'x-forwarded-for') : undefined;
      const full = clientAddressFrom(forwarded, request.socket.remoteAddress, deps.addressing.trust);
      // Places, challenges and flood counts all go by the limit key (an IPv6 client's network).
      const address = full === null ? null : limitKeyOf(full, deps.addressing.ipv6LimitPrefix);
      const floodKey = `join:${address ?? 'unknown'}`;
      const decision = deps.floodLimiter.consumeNow?.(floodKey) ?? (await deps.floodLimiter.consume(floodKey));
      if (!decision.allowed) {
        metrics.limiterRejections.inc({ limiter: 'flood_join' });
        const retryAfterSeconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
        throw new AppError('RATE_LIMITED', 'Too many requests from this address; slow down', { retryAfterSeconds });
      }
      const cookie = header(request, 'cookie');
      const token =
        bearerTokenOf(header(request, 'authorization')) ??
        (cookie ? parseCookies(cookie, cookieNames.customer)[cookieNames.customer] : undefined);
      if (!token) throw unauthorized('MISSING_TOKEN', 'Send the customer token as Authorization: Bearer <token>');
      const customerId = await deps.customerTokens.verify(token);
      const refused = await deps.pow.decide(
        showtimeId,
        { address, customerId },
        header(request, POW_CHALLENGE_HEADER),
        header(request, POW_NONCE_HEADER),
      );
      if (refused)
        return send(response, showtimeId, refused.status, refused.body, [...headers, 'cache-control', 'no-store']);
      // A client that has gone (net/load-shedding.ts) takes no place in line.
      if (clientGone(request)) return void (metrics.shedRequests.inc({ reason: 'client_gone' }), response.destroy());
      const answer = await deps.rooms.join(showtimeId, customerId, address);
      const body = await answerBody(request, showtimeId, customerId, answer, headers);
      send(response, showtimeId, 200, body, headers);
    } catch (thrown) {
      let error = thrown;
      if (!isAppError(error)) {
        deps.logger.error({ err: thrown, requestId }, 'unhandled error');
        error = new AppError('INTERNAL', 'Unexpected server error');
      }
      const appError = error as AppError;
      const errorHeaders = headers.slice(0, 2);
      if (appError.retryAfterSeconds !== null) errorHeaders.push('retry-after', String(appError.retryAfterSeconds));
      send(response, showtimeId, appError.status, errorResponseBody(appError), errorHeaders);
    }
  }

  return function fastJoin(request, response) {
    if (request.method !== 'POST') return next(request, response);
    const match = JOIN_PATH.exec(request.url ?? '');
    if (!match) return next(request, response);
    const length = request.headers['content-length'];
    if ((length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined)
      return next(request, response);
    void join(request, response, match[1]!);
  };
}
