/**
 * The OpenAPI 3.1 description of the edge's API (paths as the edge serves them), built from the
 * zod schemas in api-schemas.ts with zod's own JSON Schema output. A small registry of
 * operations rather than a framework: the routes stay plain Hono, and this file says what each
 * answers. `npm run build:openapi` writes it to edge/src/openapi/openapi.gen.ts, which the edge
 * serves at /api/openapi.json (Workers have no filesystem and no zod-to-JSON at run time).
 */
import {
  buildOpenApi,
  type Answer as DocumentAnswer,
  type Operation as DocumentOperation,
} from '../../../lib/openapi-document';
import * as schemas from './edge-api-schemas';

type SchemaName = keyof typeof componentSchemas;

const componentSchemas = {
  Error: schemas.errorBody,
  PowChallenge: schemas.powChallenge,
  DemoLoginRequest: schemas.requests.demoLoginRequest,
  DemoLogin: schemas.demoLoginResponse,
  QueueAnswer: schemas.queueAnswer,
  LeaveAnswer: schemas.leaveAnswer,
  PublicShowtime: schemas.publicShowtime,
  SeatMap: schemas.seatMap,
  SeatAvailability: schemas.seatAvailability,
  SeatMapAnswer: schemas.seatMapAnswer,
  HoldRequest: schemas.requests.holdRequest,
  HoldCreated: schemas.holdCreated,
  Hold: schemas.holdView,
  CheckoutRequest: schemas.requests.checkoutRequest,
  CheckoutSession: schemas.checkoutSession,
  Booking: schemas.booking,
  CancellationQuote: schemas.cancellationQuote,
  Cancellation: schemas.cancellation,
  BookingList: schemas.bookingList,
  FareClass: schemas.fareClass,
  FareClassList: schemas.fareClassList,
  FareClassChange: schemas.requests.fareClassChange,
  SeatClassChange: schemas.requests.seatClassChange,
  SeatClassChanged: schemas.seatClassChanged,
  RefundPolicy: schemas.requests.refundPolicy,
  PaymentWebhook: schemas.paymentWebhook,
  RoomUpdate: schemas.requests.roomUpdate,
  RoomControl: schemas.roomControl,
  RoomChangeSaved: schemas.roomChangeSaved,
  AuditPage: schemas.auditPage,
  QueueIdLookup: schemas.queueIdLookup,
  Health: schemas.health,
  Readiness: schemas.readiness,
  Jwks: schemas.jwks,
  FairnessLog: schemas.fairnessLog,
};

/** Request bodies are described as the route reads them; responses as the code writes them. */
const requestSchemas = new Set<SchemaName>([
  'DemoLoginRequest',
  'HoldRequest',
  'CheckoutRequest',
  'RoomUpdate',
  'PaymentWebhook',
  'FareClassChange',
  'SeatClassChange',
  'RefundPolicy',
]);

type Answer = DocumentAnswer<SchemaName>;

type Security = 'customer' | 'queue' | 'access' | 'admin';

/** Bookings take the turn's access token or the customer token: `security` may name several. */
type Operation = DocumentOperation<SchemaName, 'Buyers' | 'Queue' | 'Payments' | 'Operators' | 'Operations', Security>;

const err = (description: string, codes: string[], headers?: Answer['headers']): Answer => ({
  description,
  schema: 'Error',
  codes,
  ...(headers ? { headers } : {}),
});
const busy = err(
  'A dependency is down or restarting; try again after Retry-After',
  ['CORE_UNAVAILABLE', 'BUSY', 'DATABASE_UNAVAILABLE'],
  ['Retry-After'],
);
const limited = err(
  "Rate limited (token buckets, flood limit, or the customer's own calls to the seat service: a few under way at once, and a budget per minute for hold and booking reads)",
  ['RATE_LIMITED'],
  ['Retry-After'],
);
const noToken = err('No token, or a bad or expired one', ['MISSING_TOKEN', 'INVALID_TOKEN', 'TOKEN_EXPIRED']);
const operatorRefused = err('Operator token or console session missing or wrong', ['MISSING_TOKEN', 'INVALID_TOKEN']);
const consoleHeader = err("A console session's write without X-Console: 1", ['CONSOLE_HEADER_REQUIRED']);
const showtimeParam = '{id}';

export const operations: Operation[] = [
  {
    method: 'post',
    path: '/api/auth/demo',
    tag: 'Buyers',
    body: 'DemoLoginRequest',
    bodyRequired: false,
    summary: 'Demo login (development): the server picks the customer id',
    responses: {
      200: { description: 'A customer token (also set as the HttpOnly cookie wr_customer)', schema: 'DemoLogin' },
      404: err('Demo login is off', ['ROUTE_NOT_FOUND']),
      429: limited,
      503: err('The edge is overloaded and sheds load; try again after Retry-After', ['BUSY'], ['Retry-After']),
    },
  },
  {
    method: 'get',
    path: '/api/showtimes',
    tag: 'Buyers',
    summary: 'Showtimes on sale or opening soon, with seats left',
    responses: {
      200: {
        description: 'Cached about a second; served stale (with Warning) while the core is down',
        schema: { array: 'PublicShowtime' },
        headers: ['Warning'],
      },
      503: busy,
    },
  },
  {
    method: 'post',
    path: `/api/showtimes/${showtimeParam}/queue`,
    tag: 'Queue',
    security: 'customer',
    summary: 'Join the waiting room (one place per customer; joining again returns it)',
    headers: [
      {
        name: 'X-Pow-Challenge',
        required: false,
        description:
          'The challenge from a 428 answer, when the room asks for proof of work (valid only for the address and customer it was issued to)',
      },
      {
        name: 'X-Pow-Nonce',
        required: false,
        description: 'A nonce such that SHA-256 of "<challenge>:<nonce>" starts with `difficulty` zero bits',
      },
    ],
    responses: {
      200: { description: 'The place in line, or admission', schema: 'QueueAnswer' },
      401: noToken,
      403: err('Too many places from this client address', ['ADDRESS_PLACE_LIMIT']),
      404: err('Unknown showtime', ['SHOWTIME_NOT_FOUND', 'ROOM_NOT_FOUND']),
      410: err('The turn lapsed: join again', ['TURN_EXPIRED']),
      428: {
        ...err(
          'Proof of work required: solve `challenge` to `difficulty` bits and join again with X-Pow-Challenge and X-Pow-Nonce',
          ['POW_REQUIRED', 'POW_INVALID', 'POW_EXPIRED', 'POW_REUSED'],
        ),
        schema: 'PowChallenge',
      },
      429: limited,
      503: err(
        'The queue is unavailable, or the edge is overloaded and sheds load (BUSY); try again after Retry-After',
        ['QUEUE_UNAVAILABLE', 'BUSY'],
        ['Retry-After'],
      ),
    },
  },
  {
    method: 'get',
    path: `/api/showtimes/${showtimeParam}/queue`,
    tag: 'Queue',
    security: 'queue',
    summary: 'Poll the place in line (no sooner than pollAfterMs)',
    responses: {
      200: { description: 'State, position, estimate; an access token once admitted', schema: 'QueueAnswer' },
      401: noToken,
      403: err('The queue token belongs to another customer or showtime', ['NOT_YOUR_TOKEN', 'WRONG_SHOWTIME']),
      404: err('Unknown showtime', ['SHOWTIME_NOT_FOUND']),
      410: err('The place lapsed: join again', ['TURN_EXPIRED']),
      429: limited,
      503: err('The queue is unavailable; try again after Retry-After', ['QUEUE_UNAVAILABLE'], ['Retry-After']),
    },
  },
  {
    method: 'delete',
    path: `/api/showtimes/${showtimeParam}/queue`,
    tag: 'Queue',
    security: 'customer',
    summary: 'Leave the line (or give an admission back)',
    responses: {
      200: { description: 'Whether a place was removed', schema: 'LeaveAnswer' },
      401: noToken,
      404: err('Not a showtime id', ['SHOWTIME_NOT_FOUND']),
      429: limited,
      503: err('The queue is unavailable', ['QUEUE_UNAVAILABLE'], ['Retry-After']),
    },
  },
  {
    method: 'get',
    path: `/api/showtimes/${showtimeParam}/seats`,
    tag: 'Buyers',
    security: 'access',
    summary: 'The seat map (a lapsed hold reads AVAILABLE)',
    query: [
      {
        name: 'view',
        required: false,
        description:
          '`available`: the compact view for load clients (SeatAvailability: per row, one character per column and the codes at a fixed width); absent: the full map. Anything else is 422 VALIDATION_FAILED',
        schema: { type: 'string', enum: ['available'] },
      },
    ],
    responses: {
      200: {
        description:
          'Every seat with its status and the counts (SeatMap), or with view=available the compact view (SeatAvailability); each cached about a second, stale with Warning while the core is down',
        schema: 'SeatMapAnswer',
        headers: ['Warning'],
      },
      401: noToken,
      403: err('The access token is for another showtime', ['WRONG_SHOWTIME', 'NOT_YOUR_TOKEN']),
      404: err('Unknown showtime', ['SHOWTIME_NOT_FOUND']),
      422: err('Unknown view', ['VALIDATION_FAILED']),
      503: busy,
    },
  },
  {
    method: 'post',
    path: `/api/showtimes/${showtimeParam}/holds`,
    tag: 'Buyers',
    security: 'access',
    body: 'HoldRequest',
    summary:
      'Hold seats: all of them under one hold, or none; or best available (`count`, `together`): the seats are chosen for you',
    responses: {
      201: { description: 'Held until expiresAt', schema: 'HoldCreated', headers: ['Location'] },
      400: err('Body is not JSON', ['MALFORMED_JSON']),
      401: noToken,
      403: err('The access token is for another showtime', ['WRONG_SHOWTIME', 'NOT_YOUR_TOKEN']),
      404: err('Unknown showtime', ['SHOWTIME_NOT_FOUND']),
      409: err(
        'A seat is taken (`seats` names them), no `count` seats together are left (`maxTogether`: the most that sit together; ask again with `together: false`), the class is full, or the sale is not open',
        [
          'SEATS_UNAVAILABLE',
          'NO_SEATS_TOGETHER',
          'PLACES_UNAVAILABLE',
          'FARE_CLASS_FULL',
          'SALE_NOT_OPEN',
          'SHOWTIME_STARTED',
        ],
      ),
      410: err('The admission ended: join the queue again', ['TURN_ENDED']),
      413: err('Body too large', ['PAYLOAD_TOO_LARGE']),
      415: err('Not JSON', ['UNSUPPORTED_MEDIA_TYPE']),
      422: err('Invalid seats or class (`issues` explains; half a couple pair names the missing half in `seats`)', [
        'VALIDATION_FAILED',
        'DUPLICATE_SEATS',
        'UNKNOWN_SEATS',
        'SEAT_LIMIT_EXCEEDED',
        'COUPLE_SEATS_SPLIT',
        'UNKNOWN_FARE_CLASS',
      ]),
      429: limited,
      503: busy,
    },
  },
  {
    method: 'get',
    path: '/api/holds/{holdId}',
    tag: 'Buyers',
    security: 'access',
    summary: "A hold's status (EXPIRED is decided by the database clock)",
    responses: {
      200: { description: 'The hold; bookingId once paid', schema: 'Hold' },
      401: noToken,
      403: err("Someone else's hold", ['NOT_YOUR_HOLD']),
      404: err('No such hold', ['HOLD_NOT_FOUND']),
      429: limited,
      503: busy,
    },
  },
  {
    method: 'delete',
    path: '/api/holds/{holdId}',
    tag: 'Buyers',
    security: 'access',
    summary: 'Cancel a hold: its seats are free at once (idempotent)',
    responses: {
      204: { description: 'Cancelled (or already ended)' },
      401: noToken,
      403: err("Someone else's hold", ['NOT_YOUR_HOLD']),
      404: err('No such hold', ['HOLD_NOT_FOUND']),
      409: err('Paid for: ask for a refund', ['HOLD_CONFIRMED']),
      429: limited,
      503: busy,
    },
  },
  {
    method: 'post',
    path: '/api/holds/{holdId}/checkout',
    tag: 'Payments',
    security: 'access',
    body: 'CheckoutRequest',
    bodyRequired: false,
    summary: 'Open a payment session for a live hold',
    headers: [
      {
        name: 'Idempotency-Key',
        required: true,
        description: 'Same key and body: the stored answer, byte for byte (Idempotent-Replayed: true); kept 24 h',
      },
    ],
    responses: {
      200: {
        description: 'The hold already has a pending session (opened under another key): that one, never a second',
        schema: 'CheckoutSession',
        headers: ['Idempotent-Replayed'],
      },
      201: {
        description: 'The gateway session; pay at checkoutUrl',
        schema: 'CheckoutSession',
        headers: ['Idempotent-Replayed'],
      },
      400: err('Missing or malformed Idempotency-Key, or body not JSON', [
        'IDEMPOTENCY_KEY_REQUIRED',
        'IDEMPOTENCY_KEY_INVALID',
        'MALFORMED_JSON',
      ]),
      401: noToken,
      403: err("Someone else's hold", ['NOT_YOUR_HOLD']),
      404: err('No such hold', ['HOLD_NOT_FOUND']),
      409: err(
        'Hold paid or cancelled, or the same key is in flight',
        ['HOLD_CONFIRMED', 'HOLD_CANCELLED', 'IDEMPOTENCY_KEY_IN_FLIGHT'],
        ['Retry-After'],
      ),
      410: err('The hold expired, or too little of it is left to pay', ['HOLD_EXPIRED', 'TURN_ENDED']),
      422: err('Same key with another body, an invalid body or a returnUrl off the site', [
        'IDEMPOTENCY_KEY_REUSED',
        'VALIDATION_FAILED',
        'RETURN_URL_NOT_ALLOWED',
      ]),
      429: limited,
      503: busy,
    },
  },
  {
    method: 'get',
    path: '/api/bookings',
    tag: 'Buyers',
    security: ['customer', 'access'],
    summary:
      "The buyer's bookings, newest first, each with what cancelling would give back (customer token: every showing; a turn's access token: that showing's)",
    responses: { 200: { description: 'The bookings', schema: 'BookingList' }, 401: noToken, 429: limited, 503: busy },
  },
  {
    method: 'get',
    path: '/api/bookings/{bookingId}',
    tag: 'Buyers',
    security: ['access', 'customer'],
    summary: "The buyer's booking (the turn's access token, or the customer token after the turn)",
    responses: {
      200: { description: 'The booking', schema: 'Booking' },
      401: noToken,
      403: err("Someone else's booking", ['NOT_YOUR_BOOKING']),
      404: err('No such booking', ['BOOKING_NOT_FOUND']),
      429: limited,
      503: busy,
    },
  },
  {
    method: 'get',
    path: '/api/bookings/{bookingId}/cancellation',
    tag: 'Buyers',
    security: ['access', 'customer'],
    summary: "What cancelling would give back under the showtime's refund policy",
    responses: {
      200: { description: 'Whether the booking can be cancelled, and the refund now', schema: 'CancellationQuote' },
      401: noToken,
      403: err("Someone else's booking", ['NOT_YOUR_BOOKING']),
      404: err('No such booking', ['BOOKING_NOT_FOUND']),
      429: limited,
      503: busy,
    },
  },
  {
    method: 'delete',
    path: '/api/bookings/{bookingId}',
    tag: 'Buyers',
    security: ['access', 'customer'],
    summary:
      "Cancel a booking: seats free at once, the policy's refund sent (repeating answers the same); the customer token works after the turn ended",
    responses: {
      200: { description: 'Cancelled, with the refund', schema: 'Cancellation' },
      401: noToken,
      403: err("Someone else's booking", ['NOT_YOUR_BOOKING']),
      404: err('No such booking', ['BOOKING_NOT_FOUND']),
      409: err('The showtime has started, or the booking is not a confirmed one', [
        'SHOWTIME_STARTED',
        'BOOKING_NOT_CANCELLABLE',
      ]),
      429: err(
        'Too many requests from this address with a customer token, or from this customer',
        ['RATE_LIMITED'],
        ['Retry-After'],
      ),
      503: busy,
    },
  },
  {
    method: 'post',
    path: '/api/payments/callback',
    tag: 'Payments',
    body: 'PaymentWebhook',
    summary: "The gateway's webhook, forwarded byte for byte to the core",
    headers: [
      {
        name: 'X-Signature',
        required: true,
        description: 't=<unix s>,v1=<hex HMAC-SHA256 of "<t>.<raw body>"> (several v1 during a key rotation)',
      },
    ],
    responses: {
      200: { description: 'Settled, a duplicate, or an event we do not act on' },
      400: err('Body is not JSON', ['MALFORMED_JSON']),
      401: err('Signature refused', ['INVALID_SIGNATURE']),
      422: err('Not a webhook we understand (`issues` explains)', ['VALIDATION_FAILED']),
      503: err(
        'Not yet (unknown payment, busy database): deliver again',
        ['PAYMENT_UNKNOWN_YET', 'BUSY', 'DATABASE_UNAVAILABLE', 'CORE_UNAVAILABLE'],
        ['Retry-After'],
      ),
    },
  },
  {
    method: 'get',
    path: `/api/admin/showtimes/${showtimeParam}/room`,
    tag: 'Operators',
    security: 'admin',
    summary: "A room's settings, live numbers and recent audit entries",
    responses: {
      200: { description: 'The room', schema: 'RoomControl' },
      401: err('Operator token missing or wrong', ['MISSING_TOKEN', 'INVALID_TOKEN']),
      404: err('Unknown showtime', ['SHOWTIME_NOT_FOUND']),
      503: busy,
    },
  },
  {
    method: 'put',
    path: `/api/admin/showtimes/${showtimeParam}/room`,
    tag: 'Operators',
    security: 'admin',
    body: 'RoomUpdate',
    summary: 'Change room settings or state (audited)',
    headers: [{ name: 'X-Operator', required: false, description: 'Who is acting, for the audit log' }],
    responses: {
      200: { description: 'The room after the change', schema: 'RoomControl' },
      202: {
        description: "Saved, not yet applied: the queue's store is away; the room gets it when the store is back",
        schema: 'RoomChangeSaved',
        headers: ['Retry-After'],
      },
      400: err('Body is not JSON', ['MALFORMED_JSON']),
      401: err('Operator token missing or wrong', ['MISSING_TOKEN', 'INVALID_TOKEN']),
      404: err('Unknown showtime', ['SHOWTIME_NOT_FOUND']),
      409: err('The change is not allowed from the current state', ['INVALID_SALE_TRANSITION', 'ALREADY_OPENED']),
      422: err('Invalid settings (`issues` explains)', ['VALIDATION_FAILED']),
      503: busy,
    },
  },
  {
    method: 'get',
    path: `/api/admin/showtimes/${showtimeParam}/room/audit`,
    tag: 'Operators',
    security: 'admin',
    summary: 'Audit log: who changed what, before and after, when (newest first)',
    responses: {
      200: { description: 'Audit entries', schema: 'AuditPage' },
      401: err('Operator token missing or wrong', ['MISSING_TOKEN', 'INVALID_TOKEN']),
      404: err('Unknown showtime', ['SHOWTIME_NOT_FOUND']),
      503: busy,
    },
  },
  {
    method: 'get',
    path: `/api/admin/showtimes/${showtimeParam}/room/queue-ids/{queueId}`,
    tag: 'Operators',
    security: 'admin',
    summary: 'Support: the place a queue id a buyer quotes stands for, and who holds it now',
    responses: {
      200: {
        description: "Waiting (with the place), admitted (with the turn's end), or no longer in line",
        schema: 'QueueIdLookup',
      },
      401: err('Operator token missing or wrong', ['MISSING_TOKEN', 'INVALID_TOKEN']),
      404: err('Not a queue id of this showtime (a typo fails its check), no room, or not a showtime id', [
        'QUEUE_ID_NOT_FOUND',
        'ROOM_NOT_FOUND',
        'SHOWTIME_NOT_FOUND',
      ]),
      503: busy,
    },
  },
  {
    method: 'get',
    path: `/api/admin/showtimes/${showtimeParam}/room/events`,
    tag: 'Operators',
    security: 'admin',
    summary: 'Live room numbers as server-sent events, one a second',
    responses: {
      200: {
        description: 'An event stream (`stats`, or `unavailable` while Redis is down)',
        contentType: 'text/event-stream',
      },
      401: err('Operator token missing or wrong', ['MISSING_TOKEN', 'INVALID_TOKEN']),
      404: err('Not a showtime id', ['SHOWTIME_NOT_FOUND']),
    },
  },
  {
    method: 'get',
    path: `/api/admin/showtimes/${showtimeParam}/fares`,
    tag: 'Operators',
    security: 'admin',
    summary: 'Fare classes: prices, places, overbooking and live counts (sold, held, held by lapsed holds, available)',
    responses: {
      200: { description: 'The classes', schema: 'FareClassList' },
      401: operatorRefused,
      404: err('Unknown showtime', ['SHOWTIME_NOT_FOUND']),
      503: busy,
    },
  },
  {
    method: 'put',
    path: `/api/admin/showtimes/${showtimeParam}/fares/{fareClass}`,
    tag: 'Operators',
    security: 'admin',
    body: 'FareClassChange',
    summary:
      'Create a general-admission class or change a class: name, price, buckets; places and overbooking for general admission only (audited)',
    responses: {
      200: { description: 'The class after the change', schema: 'FareClass' },
      201: { description: 'A new general-admission class', schema: 'FareClass' },
      400: err('Body is not JSON', ['MALFORMED_JSON']),
      401: operatorRefused,
      403: consoleHeader,
      404: err('Unknown showtime', ['SHOWTIME_NOT_FOUND']),
      409: err(
        'Places plus overbooking below what is sold and held, or fewer buckets than those still counting places',
        ['FARE_CLASS_IN_USE'],
      ),
      422: err(
        'Invalid change (`issues` explains; also JSON nested past 32 levels or text with NUL or a lone surrogate), a bad class code, a new class without places, or places set on a seated class',
        ['VALIDATION_FAILED', 'INVALID_FARE_CLASS', 'CAPACITY_REQUIRED', 'SEATED_CLASS_CAPACITY'],
      ),
      503: busy,
    },
  },
  {
    method: 'put',
    path: `/api/admin/showtimes/${showtimeParam}/seat-classes`,
    tag: 'Operators',
    security: 'admin',
    body: 'SeatClassChange',
    summary:
      'Move free seats to another seated class (created at the showtime price when new; a class left without seats goes); all or nothing, audited',
    responses: {
      200: { description: 'Moved', schema: 'SeatClassChanged' },
      400: err('Body is not JSON', ['MALFORMED_JSON']),
      401: operatorRefused,
      403: consoleHeader,
      404: err('Unknown showtime', ['SHOWTIME_NOT_FOUND']),
      409: err('Some of the seats are held or sold (`seats` names them)', ['SEATS_UNAVAILABLE']),
      422: err(
        'Invalid or unsafe body (`issues` explains), seats not in the hall (`seats`), or a general-admission target',
        ['VALIDATION_FAILED', 'UNKNOWN_SEATS', 'INVALID_FARE_CLASS'],
      ),
      503: busy,
    },
  },
  {
    method: 'get',
    path: `/api/admin/showtimes/${showtimeParam}/refund-policy`,
    tag: 'Operators',
    security: 'admin',
    summary: "The showtime's refund policy for buyer cancellations",
    responses: {
      200: { description: 'Tiers, longest before the start first', schema: 'RefundPolicy' },
      401: operatorRefused,
      404: err('Unknown showtime', ['SHOWTIME_NOT_FOUND']),
      503: busy,
    },
  },
  {
    method: 'put',
    path: `/api/admin/showtimes/${showtimeParam}/refund-policy`,
    tag: 'Operators',
    security: 'admin',
    body: 'RefundPolicy',
    summary:
      'Set the refund policy: tiers of "at least N minutes before the start: P percent back"; each time once, never more back later (audited)',
    responses: {
      200: { description: 'The policy as stored (sorted)', schema: 'RefundPolicy' },
      400: err('Body is not JSON', ['MALFORMED_JSON']),
      401: operatorRefused,
      403: consoleHeader,
      404: err('Unknown showtime', ['SHOWTIME_NOT_FOUND']),
      422: err(
        'Invalid policy (`issues` explains; also JSON nested past 32 levels or text with NUL or a lone surrogate)',
        ['VALIDATION_FAILED'],
      ),
      503: busy,
    },
  },
  {
    method: 'get',
    path: '/api/openapi.json',
    tag: 'Operations',
    summary: 'This description',
    responses: { 200: { description: 'OpenAPI 3.1' } },
  },
  {
    method: 'get',
    path: '/.well-known/jwks.json',
    tag: 'Operations',
    summary: "Public keys of the edge's tokens (by kid)",
    responses: { 200: { description: 'JWKS', schema: 'Jwks' } },
  },
  {
    method: 'get',
    path: '/api/fairness/keys',
    tag: 'Buyers',
    summary: 'Public keys of the join receipts (JWKS, ES256)',
    responses: { 200: { description: 'JWKS', schema: 'Jwks' } },
  },
  {
    method: 'get',
    path: `/api/showtimes/${showtimeParam}/fairness`,
    tag: 'Buyers',
    summary:
      "The admission log (docs/fairness.md): the draw's commitment and the chain's head live; the whole log, the salt and the seed once the sale has ended",
    responses: {
      200: { description: 'The published log (check it with npm run verify-fairness)', schema: 'FairnessLog' },
      404: err('Unknown showtime', ['SHOWTIME_NOT_FOUND']),
      503: busy,
    },
  },
  {
    method: 'get',
    path: '/healthz',
    tag: 'Operations',
    summary: 'Liveness',
    responses: {
      200: {
        description:
          'The process answers; on Node also `shedding` (true while the event loop lags and costly requests are answered 503 BUSY), `eventLoopLagMs` and `coreCallsInFlight`',
        schema: 'Health',
      },
    },
  },
  {
    method: 'get',
    path: '/readyz',
    tag: 'Operations',
    summary: 'Readiness per dependency',
    responses: {
      200: {
        description: 'Ready, or degraded (one dependency down: the failure policy keeps serving)',
        schema: 'Readiness',
      },
      503: { description: 'Both Redis and the core are down', schema: 'Readiness', headers: ['Retry-After'] },
    },
  },
  {
    method: 'get',
    path: '/metrics',
    tag: 'Operations',
    security: 'admin',
    summary: 'Prometheus metrics',
    responses: {
      200: { description: 'Prometheus text format', contentType: 'text/plain' },
      401: err('Operator token missing or wrong', ['MISSING_TOKEN', 'INVALID_TOKEN']),
    },
  },
];

/**
 * What every operation of a kind may answer, whatever its route: the body limit (every method,
 * DELETE and GET included), the media type, syntax and shape of a JSON body, a malformed query
 * value, and the per-address lockout of wrong operator tokens.
 */
function commonAnswers(op: Operation): Record<number, Answer> {
  const answers: Record<number, Answer> = {
    413: err('A body past the limit (MAX_BODY_BYTES, 64 KB by default), on any method', ['PAYLOAD_TOO_LARGE']),
  };
  if (op.body) {
    answers[400] = err('Body is not JSON', ['MALFORMED_JSON']);
    answers[415] = err('A body that is not application/json', ['UNSUPPORTED_MEDIA_TYPE']);
    answers[422] = err(
      'Invalid body (`issues` explains; also JSON nested past 32 levels or text with NUL or a lone surrogate)',
      ['VALIDATION_FAILED'],
    );
  }
  if (op.query) answers[422] = err('Invalid body or query value, or a query value given twice', ['VALIDATION_FAILED']);
  if ([op.security].flat().includes('admin'))
    answers[429] = err(
      'Too many wrong operator tokens from this address: locked out for a while',
      ['LOCKED_OUT'],
      ['Retry-After'],
    );
  return answers;
}

const pathParameters: Record<string, { description: string; schema: object }> = {
  id: { description: 'Showtime id', schema: { type: 'integer', minimum: 1, maximum: 999_999_999_999_999 } },
  holdId: { description: 'Hold id', schema: { type: 'string', format: 'uuid' } },
  bookingId: { description: 'Booking id', schema: { type: 'string', format: 'uuid' } },
  fareClass: {
    description: 'Class code: 1-16 capital letters, digits or underscores, starting with a letter (GA_FLOOR)',
    schema: { type: 'string', pattern: '^[A-Z][A-Z0-9_]{0,15}$' },
  },
  queueId: {
    description: 'A queue id as the buyer reads it (case, spaces and dashes do not matter)',
    schema: { type: 'string', maxLength: 32 },
  },
};

/** The whole document, deterministic (same input, same bytes). */
export function buildOpenApiDocument() {
  return buildOpenApi({
    info: {
      title: 'Flash-sale waiting room and seat service',
      version: '1.0.0',
      description:
        "The edge's API: the waiting room, seat maps, holds, checkout and bookings for buyers, room control for operators. " +
        'Errors are always {"error":{"code","message",…}}; 429 and 503 carry Retry-After. Every answer carries X-Request-Id; ' +
        'a W3C traceparent sent with a request is continued to the core and the payment gateway. See docs/architecture.md.',
    },
    servers: [{ url: '/', description: 'The edge (port 8080)' }],
    tags: [
      { name: 'Queue', description: 'Join, poll and leave the waiting room' },
      { name: 'Buyers', description: 'Seat maps, holds and bookings (access token from the queue)' },
      { name: 'Payments', description: "Checkout and the gateway's webhook" },
      { name: 'Operators', description: 'Room control (Bearer ADMIN_TOKEN, or the console cookie)' },
      { name: 'Operations', description: 'Health, readiness, metrics, keys' },
    ],
    components: componentSchemas,
    requests: [...requestSchemas],
    operations,
    pathParameters,
    commonAnswers,
    securitySchemes: {
      customer: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: 'Customer token (demo login or the identity provider); browsers: cookie wr_customer',
      },
      queue: {
        type: 'apiKey',
        in: 'header',
        name: 'X-Queue-Token',
        description: 'Queue token from the join; browsers: cookie wr_q_<showtime>',
      },
      access: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: 'Access token from the admission; browsers: cookie wr_a_<showtime>',
      },
      admin: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN' },
    },
  });
}
