/**
 * Node only: polls a fresh snapshot can answer are served straight on node:http, without
 * building the Request and Response objects @hono/node-server needs for the Hono app. That
 * adapter work cost more than the poll itself, and polls are most of what the edge serves at
 * peak. Every other request, and any poll this path is not sure about (no X-Queue-Token, a
 * customer token to cross-check, a token not in the form the edge signs, a ticket that changed,
 * a limit hit, no fresh snapshot), goes to the Hono app unchanged, which answers it in full. The body,
 * headers, flood limit and metrics are the ones the Hono route produces.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { incomingRequestId } from '../../lib/http';
import type { FloodDecision, FloodLimiter } from './limits/flood-limiter';
import { type ClientAddressing, clientAddressFrom, limitKeyOf } from './net/client-address';
import type { EdgeMetrics } from './metrics';
import { queueAnswerBody, type QueueAnswer, type RoomGateway } from './rooms/room-gateway';
import type { QueueTokens } from './tokens/queue-token';

const POLL_PATH = /^\/api\/showtimes\/([A-Za-z0-9_-]{1,64})\/queue$/;

export interface FastPollDeps {
  rooms: RoomGateway;
  queueTokens: QueueTokens;
  floodLimiter: FloodLimiter;
  metrics: EdgeMetrics;
  /** Trusted proxies in front of the edge (net/client-address.ts). */
  addressing: ClientAddressing;
}

type Listener = (request: IncomingMessage, response: ServerResponse) => unknown;

function clientAddress(request: IncomingMessage, addressing: ClientAddressing): string {
  const forwarded = addressing.trust.proxies.size > 0 ? request.headers['x-forwarded-for'] : undefined;
  return limitKeyOf(
    clientAddressFrom(forwarded, request.socket.remoteAddress, addressing.trust),
    addressing.ipv6LimitPrefix,
  );
}

export function fastPollListener(deps: FastPollDeps, fallback: Listener): Listener {
  const answered = deps.metrics.httpRequests.child({ route: '/api/showtimes/:id/queue', method: 'GET', status: '200' });
  const fast = deps.metrics.fastPolls.child({});

  function send(request: IncomingMessage, response: ServerResponse, answer: QueueAnswer, decision: FloodDecision) {
    if (!decision.allowed) return fallback(request, response); // the app answers the 429 in full
    const requestId = incomingRequestId(request.headers['x-request-id']) ?? randomUUID();
    const body = JSON.stringify(queueAnswerBody(answer));
    // A flat header list skips Node's per-call header object handling.
    response.writeHead(200, [
      'content-type',
      'application/json',
      'content-length',
      String(Buffer.byteLength(body)),
      'cache-control',
      'no-store',
      'x-request-id',
      requestId,
    ]);
    response.end(body);
    answered.inc();
    fast.inc();
  }

  return function fastPoll(request, response) {
    if (request.method !== 'GET' || request.headers.authorization) return fallback(request, response);
    const match = POLL_PATH.exec(request.url ?? '');
    const token = request.headers['x-queue-token'];
    if (!match || typeof token !== 'string') return fallback(request, response);
    const showtimeId = match[1]!;
    // A token this process has not seen (another process signed it, or this one restarted) is
    // checked here when it is in the form the edge signs; anything else goes to the app.
    const claims = deps.queueTokens.verifyNow(token);
    if (!claims || claims.showtimeId !== showtimeId) return fallback(request, response);

    // Decide first, count after: a poll handed to the app must not be counted twice.
    const answer = deps.rooms.pollFromFreshSnapshot(showtimeId, claims.customerId, claims.ticket);
    if (!answer || answer.ticket !== claims.ticket || answer.accessToken) return fallback(request, response);
    const floodKey = `poll:${clientAddress(request, deps.addressing)}`;
    // An in-process count answers at once (no promise per poll); a shared one is awaited.
    const now = deps.floodLimiter.consumeNow?.(floodKey);
    if (now) return send(request, response, answer, now);
    return deps.floodLimiter.consume(floodKey).then(
      (decision) => send(request, response, answer, decision),
      () => fallback(request, response),
    );
  };
}
