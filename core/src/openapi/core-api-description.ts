/**
 * The OpenAPI 3.1 description of the core's own API (port 8081): what the edge, the queue ticker,
 * operators' tools and the payment gateway call. Paths as the core serves them (no /api prefix).
 * Built from the zod schemas the routes validate with, and from the answer schemas the edge's
 * description uses for the bodies it passes through (lib/api-schemas.ts); served
 * at GET /openapi.json, built once on first request. test/e2e/core-openapi-contract.test.ts holds
 * real answers of a running core to it and checks every route the core serves is described.
 */
import { z } from 'zod';
import { buildOpenApi, type Answer, type Operation } from '../../../lib/openapi-document';
import * as shared from '../../../lib/api-schemas';
import { holdRequestSchema } from '../seats/hold-service';
import { checkoutSchema } from '../checkout/checkout-routes';
import { hallSchema, newShowtimeSchema, showtimeChangesSchema, venueSchema } from '../catalog/catalog-schemas';
import { fareClassChangeSchema } from '../fares/fare-service';
import { seatClassChangeSchema } from '../fares/seat-classes';
import { refundPolicySchema } from '../bookings/booking-routes';
import { endTurnSchema, turnSchema } from '../sale/sale-routes';
import { roomUpdateSchema } from '../../../queue/src/room-update';

const instant = z.iso.datetime({ offset: true });
const count = z.number().int().nonnegative();
const saleState = z.enum(['on_sale', 'opening_soon', 'sold_out', 'paused', 'closed', 'started']);

const venue = z.looseObject({ id: z.number().int(), name: z.string(), city: z.string() });
const hall = z.looseObject({ id: z.number().int(), venueId: z.number().int(), name: z.string(), seatCount: count });
const venueWithHalls = venue.extend({
  halls: z.array(z.looseObject({ id: z.number().int(), name: z.string(), seatCount: count })),
});
const adminShowtime = shared.publicShowtime.extend({
  hallId: z.number().int(),
  saleSetting: z
    .enum(['OPEN', 'PAUSED', 'CLOSED', 'SOLD_OUT'])
    .describe("The operator's switch as stored; saleState is derived from it"),
  maxSeatsPerCustomer: z.number().int().positive(),
  holdTtlMs: z.number().int().positive(),
  counts: z.looseObject({ total: count, available: count, held: count, booked: count }),
});
const fareClass = z.looseObject({
  fareClass: z.string(),
  label: z.string(),
  priceCents: count,
  ownPrice: z.boolean().describe("False: the showtime's price"),
  seated: z.boolean().describe('Seated (chosen on the map) or general admission (a quantity)'),
  buckets: z.number().int().positive(),
  capacity: count,
  overbookLimit: count,
  sold: count,
  held: count,
  heldLapsed: count,
  available: z.number().int(),
});
const fareClassList = z.looseObject({ showtimeId: z.number().int(), fareClasses: z.array(fareClass) });
const seatClassChange = z
  .looseObject({ showtimeId: z.number().int(), fareClass: z.string() })
  .describe('The seats moved and the classes after');
const refundPolicy = z.looseObject({
  tiers: z
    .array(z.looseObject({ percent: z.number().int().min(0).max(100), beforeStartMinutes: count }))
    .describe('Refund percent for a cancellation at least beforeStartMinutes before the start'),
});
const saleControl = z.looseObject({
  showtimeId: z.number().int(),
  version: z.number().int(),
  saleState,
  saleSetting: z.enum(['OPEN', 'PAUSED', 'CLOSED', 'SOLD_OUT']),
  opensAt: instant,
  startsAt: instant,
  settings: z.record(z.string(), z.unknown()).describe('Only what an operator set (engine units)'),
  room: z
    .looseObject({
      capacity: count,
      admitPerMinute: count,
      sessionTtlMs: count,
      state: z.enum(['scheduled', 'open', 'paused', 'closed', 'sold_out']),
      opensAtMs: z.number().int().nullable(),
      version: z.number().int(),
    })
    .describe('The complete settings the room in Redis must have, stamped with the version'),
  turns: z
    .array(z.looseObject({ customerId: z.string(), ticket: z.number().int(), expiresAtMs: z.number().int() }))
    .optional()
    .describe('Live turns (the turn ledger), on single reads'),
  draw: z
    .looseObject({ seed: z.string(), commitment: z.string() })
    .optional()
    .describe("The opening draw's seed (secret until the sale ends) and its published commitment"),
});
const turnsEnded = z.looseObject({ ended: count });
const admissionHealth = z.looseObject({
  windowMs: count,
  requests: count,
  errors: count,
  errorRate: z.number().min(0).max(1),
  holds: count,
  holdP95Ms: z.number().nonnegative().nullable(),
  holdsInFlight: count,
  inFlight: count,
  poolSize: count,
  poolWaiting: count,
  showtimes: z.array(
    z.looseObject({
      showtimeId: z.number().int(),
      seatsLeft: z.number().int(),
      seatsPerHold: z.number().nullable(),
      holdsSeen: count,
    }),
  ),
});
const adminBooking = shared.booking.extend({
  customerId: z.string(),
  history: z
    .array(
      z.looseObject({
        entityType: z.enum(['hold', 'booking', 'payment']),
        entityId: z.string(),
        from: z.string().nullable(),
        to: z.string(),
        cause: z.string(),
        at: instant,
      }),
    )
    .describe('Every state change of the hold, the payment and the booking, oldest first'),
});
const callbackAnswer = z.looseObject({
  received: z.literal(true),
  outcome: z.string().describe('booked, refund_requested, duplicate, ignored, …'),
});
const coreReadiness = z.looseObject({
  status: z.enum(['ready', 'not_ready']),
  database: z.enum(['ok', 'unreachable']),
});

const components = {
  Error: shared.errorBody,
  PublicShowtime: shared.publicShowtime,
  SeatMap: shared.seatMap,
  SeatAvailability: shared.seatAvailability,
  SeatMapAnswer: shared.seatMapAnswer,
  HoldRequest: holdRequestSchema,
  HoldCreated: shared.holdCreated,
  Hold: shared.holdView,
  CheckoutRequest: checkoutSchema,
  CheckoutSession: shared.checkoutSession,
  Booking: shared.booking,
  BookingList: shared.bookingList,
  CancellationQuote: shared.cancellationQuote,
  Cancellation: shared.cancellation,
  PaymentWebhook: shared.paymentWebhook,
  CallbackAnswer: callbackAnswer,
  VenueRequest: venueSchema,
  Venue: venue,
  VenueWithHalls: venueWithHalls,
  HallRequest: hallSchema,
  Hall: hall,
  ShowtimeRequest: newShowtimeSchema,
  ShowtimeChanges: showtimeChangesSchema,
  AdminShowtime: adminShowtime,
  FareClassChange: fareClassChangeSchema,
  FareClass: fareClass,
  FareClassList: fareClassList,
  SeatClassChangeRequest: seatClassChangeSchema,
  SeatClassChange: seatClassChange,
  RefundPolicyRequest: refundPolicySchema,
  RefundPolicy: refundPolicy,
  AdminBooking: adminBooking,
  RoomUpdate: roomUpdateSchema,
  SaleControl: saleControl,
  TurnRequest: turnSchema,
  EndTurnRequest: endTurnSchema,
  TurnsEnded: turnsEnded,
  AuditPage: shared.auditPage,
  AdmissionHealth: admissionHealth,
  Health: shared.health,
  Readiness: coreReadiness,
  FairnessLog: shared.fairnessLog,
};
type S = keyof typeof components;
type Tag = 'Buyers' | 'Payments' | 'Catalog' | 'Sale control' | 'Operations';
type Sec = 'access' | 'admin';

const err = (description: string, codes: string[], headers?: Answer<S>['headers']): Answer<S> => ({
  description,
  schema: 'Error',
  codes,
  ...(headers ? { headers } : {}),
});
const busy = err(
  'The database is busy or down; try again after Retry-After',
  ['BUSY', 'DATABASE_UNAVAILABLE'],
  ['Retry-After'],
);
const noToken = err('No token, or a bad or expired one', ['MISSING_TOKEN', 'INVALID_TOKEN', 'TOKEN_EXPIRED']);
const noAdmin = err('Operator token missing or wrong', ['MISSING_TOKEN', 'INVALID_TOKEN']);
const notJson = err('Body is not JSON', ['MALFORMED_JSON']);
// VALIDATION_FAILED also covers the JSON guard (lib/json-guard.ts): nesting past 32 levels, NUL, lone surrogates.
const invalid = (what: string, more: string[] = []) =>
  err(`${what} (\`issues\` explains; also JSON nested past 32 levels or text with NUL or a lone surrogate)`, [
    'VALIDATION_FAILED',
    ...more,
  ]);
const noShowtime = err('Unknown showtime', ['SHOWTIME_NOT_FOUND']);
const S_ID = '{showtimeId}';

const operations: Operation<S, Tag, Sec>[] = [
  // Buyers (the edge forwards with the buyer's access token)
  {
    method: 'get',
    path: '/showtimes',
    tag: 'Buyers',
    summary: 'Showtimes on sale or opening soon (the 100 soonest)',
    responses: { 200: { description: 'The list', schema: { array: 'PublicShowtime' } }, 503: busy },
  },
  {
    method: 'get',
    path: `/showtimes/${S_ID}`,
    tag: 'Buyers',
    summary: 'One showtime in any sale state (closed and started included)',
    responses: { 200: { description: 'The showtime', schema: 'PublicShowtime' }, 404: noShowtime, 503: busy },
  },
  {
    method: 'get',
    path: `/showtimes/${S_ID}/fairness`,
    tag: 'Buyers',
    summary:
      "The admission log: the draw's commitment and the chain's head live; the whole log, the salt and the seed once the sale has ended (copies the room's journal first)",
    responses: { 200: { description: 'The published log', schema: 'FairnessLog' }, 404: noShowtime, 503: busy },
  },
  {
    method: 'get',
    path: `/showtimes/${S_ID}/seats`,
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
        description: 'Every seat and the counts (SeatMap), or with view=available the compact view (SeatAvailability)',
        schema: 'SeatMapAnswer',
      },
      401: noToken,
      403: err('The access token is for another showtime', ['WRONG_SHOWTIME']),
      404: noShowtime,
      422: invalid('Unknown view'),
      503: busy,
    },
  },
  {
    method: 'post',
    path: `/showtimes/${S_ID}/holds`,
    tag: 'Buyers',
    security: 'access',
    body: 'HoldRequest',
    summary:
      'Hold seats (all or none), places of a general-admission class, or the best available seats (`count`, `together`)',
    responses: {
      201: { description: 'Held until expiresAt', schema: 'HoldCreated', headers: ['Location'] },
      400: notJson,
      401: noToken,
      403: err('The access token is for another showtime', ['WRONG_SHOWTIME']),
      404: noShowtime,
      409: err(
        'A seat is taken (`seats` names them), no `count` seats together are left (`maxTogether`, `available`), places ran out, or the sale is not open',
        [
          'SEATS_UNAVAILABLE',
          'NO_SEATS_TOGETHER',
          'PLACES_UNAVAILABLE',
          'FARE_CLASS_FULL',
          'SALE_NOT_OPEN',
          'SHOWTIME_STARTED',
        ],
      ),
      410: err('The admission ended (with an admission check configured)', ['TURN_ENDED']),
      413: err('Body too large', ['PAYLOAD_TOO_LARGE']),
      415: err('Not JSON', ['UNSUPPORTED_MEDIA_TYPE']),
      422: invalid('Invalid seats or class', [
        'DUPLICATE_SEATS',
        'UNKNOWN_SEATS',
        'SEAT_LIMIT_EXCEEDED',
        'COUPLE_SEATS_SPLIT',
        'UNKNOWN_FARE_CLASS',
      ]),
      503: busy,
    },
  },
  {
    method: 'get',
    path: '/holds/{holdId}',
    tag: 'Buyers',
    security: 'access',
    summary: "A hold of the token's showtime (EXPIRED by the database clock)",
    responses: {
      200: { description: 'The hold; bookingId once paid', schema: 'Hold' },
      401: noToken,
      403: err("Someone else's hold", ['NOT_YOUR_HOLD']),
      404: err('No such hold for this showtime', ['HOLD_NOT_FOUND']),
      503: busy,
    },
  },
  {
    method: 'delete',
    path: '/holds/{holdId}',
    tag: 'Buyers',
    security: 'access',
    summary: 'Cancel a hold: its seats are free at once (idempotent)',
    responses: {
      204: { description: 'Cancelled (or already ended)' },
      401: noToken,
      403: err("Someone else's hold", ['NOT_YOUR_HOLD']),
      404: err('No such hold for this showtime', ['HOLD_NOT_FOUND']),
      409: err('Paid for: ask for a refund', ['HOLD_CONFIRMED']),
      503: busy,
    },
  },
  {
    method: 'post',
    path: '/holds/{holdId}/checkout',
    tag: 'Payments',
    security: 'access',
    body: 'CheckoutRequest',
    bodyRequired: false,
    summary: 'Open a payment session at the gateway for a live hold',
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
      201: { description: 'The gateway session', schema: 'CheckoutSession', headers: ['Idempotent-Replayed'] },
      400: err('Missing or malformed Idempotency-Key, or body not JSON', [
        'IDEMPOTENCY_KEY_REQUIRED',
        'IDEMPOTENCY_KEY_INVALID',
        'MALFORMED_JSON',
      ]),
      401: noToken,
      403: err("Someone else's hold", ['NOT_YOUR_HOLD']),
      404: err('No such hold for this showtime', ['HOLD_NOT_FOUND']),
      409: err('Hold paid or cancelled, or the same key (or another checkout of the hold) is in flight', [
        'HOLD_CONFIRMED',
        'HOLD_CANCELLED',
        'IDEMPOTENCY_KEY_IN_FLIGHT',
      ]),
      410: err('The hold expired, or too little of it is left to pay', ['HOLD_EXPIRED', 'TURN_ENDED']),
      422: err('Same key with another body, an invalid body or a returnUrl off the site', [
        'IDEMPOTENCY_KEY_REUSED',
        'VALIDATION_FAILED',
        'RETURN_URL_NOT_ALLOWED',
      ]),
      502: err('The payment provider refused the session', ['PAYMENT_GATEWAY_REFUSED']),
      503: err(
        'The payment provider or the database is unavailable',
        ['PAYMENT_GATEWAY_UNAVAILABLE', 'BUSY', 'DATABASE_UNAVAILABLE'],
        ['Retry-After'],
      ),
    },
  },
  {
    method: 'get',
    path: '/bookings',
    tag: 'Buyers',
    security: 'access',
    summary:
      "The buyer's bookings, newest first, each with what cancelling would give back (a turn's access token: that showtime's; a customer access token: all)",
    responses: { 200: { description: 'The bookings', schema: 'BookingList' }, 401: noToken, 503: busy },
  },
  {
    method: 'get',
    path: '/bookings/{bookingId}',
    tag: 'Buyers',
    security: 'access',
    summary: "The buyer's booking",
    responses: {
      200: { description: 'The booking', schema: 'Booking' },
      401: noToken,
      403: err("Someone else's booking", ['NOT_YOUR_BOOKING']),
      404: err('No such booking', ['BOOKING_NOT_FOUND']),
      503: busy,
    },
  },
  {
    method: 'get',
    path: '/bookings/{bookingId}/cancellation',
    tag: 'Buyers',
    security: 'access',
    summary: "What cancelling would give back under the showtime's refund policy",
    responses: {
      200: { description: 'Whether it can be cancelled, and the refund now', schema: 'CancellationQuote' },
      401: noToken,
      403: err("Someone else's booking", ['NOT_YOUR_BOOKING']),
      404: err('No such booking', ['BOOKING_NOT_FOUND']),
      503: busy,
    },
  },
  {
    method: 'delete',
    path: '/bookings/{bookingId}',
    tag: 'Buyers',
    security: 'access',
    summary: "Cancel a booking: seats free at once, the policy's refund sent",
    responses: {
      200: { description: 'Cancelled, with the refund', schema: 'Cancellation' },
      401: noToken,
      403: err("Someone else's booking", ['NOT_YOUR_BOOKING']),
      404: err('No such booking', ['BOOKING_NOT_FOUND']),
      409: err('The showtime has started, or the booking is not a confirmed one', [
        'SHOWTIME_STARTED',
        'BOOKING_NOT_CANCELLABLE',
      ]),
      503: busy,
    },
  },
  {
    method: 'post',
    path: '/payments/callback',
    tag: 'Payments',
    body: 'PaymentWebhook',
    summary: "The gateway's webhook (signature checked on the raw bytes; a traceparent continues the checkout's trace)",
    headers: [
      {
        name: 'X-Signature',
        required: true,
        description: 't=<unix s>,v1=<hex HMAC-SHA256 of "<t>.<raw body>"> (several v1 during a key rotation)',
      },
    ],
    responses: {
      200: { description: 'Settled, a duplicate, or an event we do not act on', schema: 'CallbackAnswer' },
      400: notJson,
      401: err('Signature refused', ['INVALID_SIGNATURE']),
      422: invalid('Not a webhook we understand', ['AMOUNT_REQUIRED']),
      503: err(
        'Not yet (unknown payment, busy database): deliver again',
        ['PAYMENT_UNKNOWN_YET', 'BUSY', 'DATABASE_UNAVAILABLE'],
        ['Retry-After'],
      ),
    },
  },
  // Catalog (operators)
  {
    method: 'get',
    path: '/admin/venues',
    tag: 'Catalog',
    security: 'admin',
    summary: 'Venues with their halls',
    responses: { 200: { description: 'The venues', schema: { array: 'VenueWithHalls' } }, 401: noAdmin, 503: busy },
  },
  {
    method: 'post',
    path: '/admin/venues',
    tag: 'Catalog',
    security: 'admin',
    body: 'VenueRequest',
    summary: 'Create a venue',
    responses: {
      201: { description: 'Created', schema: 'Venue' },
      400: notJson,
      401: noAdmin,
      409: err('A venue of that name exists', ['DUPLICATE']),
      422: invalid('Invalid venue', ['CONSTRAINT_VIOLATED']),
      503: busy,
    },
  },
  {
    method: 'post',
    path: '/admin/venues/{venueId}/halls',
    tag: 'Catalog',
    security: 'admin',
    body: 'HallRequest',
    summary: 'Create a hall with its seats',
    responses: {
      201: { description: 'Created', schema: 'Hall' },
      400: notJson,
      401: noAdmin,
      404: err('Not a venue id', ['VENUE_NOT_FOUND']),
      409: err('A hall of that name exists in the venue', ['DUPLICATE']),
      413: err('Body too large', ['PAYLOAD_TOO_LARGE']),
      422: invalid('Invalid hall or seats, or an unknown venue', ['REFERENCE_NOT_FOUND']),
      503: busy,
    },
  },
  {
    method: 'post',
    path: '/admin/showtimes',
    tag: 'Catalog',
    security: 'admin',
    body: 'ShowtimeRequest',
    summary: 'Create a showtime (its seats from the hall, its room settings, its classes)',
    responses: {
      201: { description: 'Created', schema: 'AdminShowtime' },
      400: notJson,
      401: noAdmin,
      422: invalid('Invalid showtime, or an unknown hall', ['REFERENCE_NOT_FOUND']),
      503: busy,
    },
  },
  {
    method: 'get',
    path: `/admin/showtimes/${S_ID}`,
    tag: 'Catalog',
    security: 'admin',
    summary: 'A showtime with its switch, limits and counts',
    responses: {
      200: { description: 'The showtime', schema: 'AdminShowtime' },
      401: noAdmin,
      404: noShowtime,
      503: busy,
    },
  },
  {
    method: 'patch',
    path: `/admin/showtimes/${S_ID}`,
    tag: 'Catalog',
    security: 'admin',
    body: 'ShowtimeChanges',
    summary: 'Change sale settings (time to pay, seats per customer, times); audited',
    headers: [{ name: 'X-Operator', required: false, description: 'Who is acting, for the audit log' }],
    responses: {
      200: { description: 'The showtime after', schema: 'AdminShowtime' },
      400: notJson,
      401: noAdmin,
      404: noShowtime,
      409: err('Not allowed in the current state', ['ALREADY_OPENED', 'INVALID_SALE_TRANSITION', 'SHOWTIME_STARTED']),
      422: invalid('Invalid change'),
      503: busy,
    },
  },
  {
    method: 'get',
    path: `/admin/showtimes/${S_ID}/fares`,
    tag: 'Catalog',
    security: 'admin',
    summary: 'Fare classes with capacity, price and live counters',
    responses: {
      200: { description: 'The classes', schema: 'FareClassList' },
      401: noAdmin,
      404: noShowtime,
      503: busy,
    },
  },
  {
    method: 'put',
    path: `/admin/showtimes/${S_ID}/fares/{fareClass}`,
    tag: 'Catalog',
    security: 'admin',
    body: 'FareClassChange',
    summary: 'Create or change a fare class (general admission by capacity); audited',
    headers: [{ name: 'X-Operator', required: false, description: 'Who is acting, for the audit log' }],
    responses: {
      200: { description: 'Changed', schema: 'FareClass' },
      201: { description: 'Created', schema: 'FareClass' },
      400: notJson,
      401: noAdmin,
      404: noShowtime,
      409: err('The change would leave fewer places than are sold and held', ['FARE_CLASS_IN_USE']),
      422: invalid('Invalid class or change', [
        'INVALID_FARE_CLASS',
        'CAPACITY_REQUIRED',
        'SEATED_CLASS_CAPACITY',
        'CONSTRAINT_VIOLATED',
      ]),
      503: busy,
    },
  },
  {
    method: 'put',
    path: `/admin/showtimes/${S_ID}/seat-classes`,
    tag: 'Catalog',
    security: 'admin',
    body: 'SeatClassChangeRequest',
    summary: 'Move seats to a seated fare class (before they are sold); audited',
    headers: [{ name: 'X-Operator', required: false, description: 'Who is acting, for the audit log' }],
    responses: {
      200: { description: 'Moved', schema: 'SeatClassChange' },
      400: notJson,
      401: noAdmin,
      404: noShowtime,
      409: err('A seat is held or sold', ['SEATS_UNAVAILABLE']),
      422: invalid('Unknown seats, or a general-admission class', ['UNKNOWN_SEATS', 'INVALID_FARE_CLASS']),
      503: busy,
    },
  },
  {
    method: 'get',
    path: `/admin/showtimes/${S_ID}/refund-policy`,
    tag: 'Catalog',
    security: 'admin',
    summary: "The showtime's refund policy (tiers by time before the start)",
    responses: { 200: { description: 'The policy', schema: 'RefundPolicy' }, 401: noAdmin, 404: noShowtime, 503: busy },
  },
  {
    method: 'put',
    path: `/admin/showtimes/${S_ID}/refund-policy`,
    tag: 'Catalog',
    security: 'admin',
    body: 'RefundPolicyRequest',
    summary: 'Set the refund policy',
    responses: {
      200: { description: 'The policy', schema: 'RefundPolicy' },
      400: notJson,
      401: noAdmin,
      404: noShowtime,
      422: invalid('Invalid tiers'),
      503: busy,
    },
  },
  {
    method: 'get',
    path: '/admin/bookings/{bookingId}',
    tag: 'Catalog',
    security: 'admin',
    summary: 'A booking with the whole history of its hold, payment and booking',
    responses: {
      200: { description: 'The booking', schema: 'AdminBooking' },
      401: noAdmin,
      404: err('No such booking', ['BOOKING_NOT_FOUND']),
      503: busy,
    },
  },
  {
    method: 'post',
    path: '/admin/bookings/{bookingId}/refund',
    tag: 'Catalog',
    security: 'admin',
    summary: 'Refund a booking in full: seats free at once, the money sent back (repeating answers the same)',
    responses: {
      200: { description: 'Refunded', schema: 'Booking' },
      401: noAdmin,
      404: err('No such booking', ['BOOKING_NOT_FOUND']),
      409: err('Not a confirmed booking', ['BOOKING_NOT_REFUNDABLE']),
      503: busy,
    },
  },
  // Sale control
  {
    method: 'get',
    path: '/admin/rooms',
    tag: 'Sale control',
    security: 'admin',
    summary: 'Every current sale control, for restoring rooms into Redis',
    responses: { 200: { description: 'The rooms', schema: { array: 'SaleControl' } }, 401: noAdmin, 503: busy },
  },
  {
    method: 'get',
    path: `/admin/showtimes/${S_ID}/room`,
    tag: 'Sale control',
    security: 'admin',
    summary: "A showtime's sale control with its live turns",
    responses: {
      200: { description: 'The sale control', schema: 'SaleControl' },
      401: noAdmin,
      404: noShowtime,
      503: busy,
    },
  },
  {
    method: 'put',
    path: `/admin/showtimes/${S_ID}/room`,
    tag: 'Sale control',
    security: 'admin',
    body: 'RoomUpdate',
    summary: 'Change room settings or the sale switch (audited, versioned)',
    headers: [
      { name: 'X-Operator', required: false, description: 'Who is acting, for the audit log' },
      { name: 'X-Operator-Source', required: false, description: "The operator's address, for the audit log" },
    ],
    responses: {
      200: { description: 'The sale control after the change', schema: 'SaleControl' },
      400: notJson,
      401: noAdmin,
      404: noShowtime,
      409: err('The change is not allowed from the current state', ['INVALID_SALE_TRANSITION', 'ALREADY_OPENED']),
      422: invalid('Invalid settings'),
      503: busy,
    },
  },
  {
    method: 'post',
    path: `/admin/showtimes/${S_ID}/turns`,
    tag: 'Sale control',
    security: 'admin',
    body: 'TurnRequest',
    summary: 'Record an admission in the turn ledger (the edge, as it admits)',
    responses: {
      204: { description: 'Recorded' },
      400: notJson,
      401: noAdmin,
      404: noShowtime,
      422: invalid('Invalid turn'),
      503: busy,
    },
  },
  {
    method: 'post',
    path: `/admin/showtimes/${S_ID}/turns/end`,
    tag: 'Sale control',
    security: 'admin',
    body: 'EndTurnRequest',
    summary: "End a customer's live turns (left, or finished buying)",
    responses: {
      404: err('Not a showtime id', ['SHOWTIME_NOT_FOUND']),
      200: { description: 'How many ended', schema: 'TurnsEnded' },
      400: notJson,
      401: noAdmin,
      422: invalid('Invalid customer id'),
      503: busy,
    },
  },
  {
    method: 'get',
    path: `/admin/showtimes/${S_ID}/room/audit`,
    tag: 'Sale control',
    security: 'admin',
    summary: 'Audit log: who changed what, before and after, when (newest first)',
    query: [
      {
        name: 'limit',
        required: false,
        description: 'How many entries (1-1000, default 200)',
        schema: { type: 'integer', minimum: 1, maximum: 1000 },
      },
    ],
    responses: { 200: { description: 'Audit entries', schema: 'AuditPage' }, 401: noAdmin, 404: noShowtime, 503: busy },
  },
  {
    method: 'get',
    path: '/admin/admission-health',
    tag: 'Sale control',
    security: 'admin',
    summary: "The core's health for adaptive admission: hold latency, errors, pool, and seats left per showtime",
    query: [
      {
        name: 'showtimes',
        required: false,
        description: 'Comma-separated showtime ids (up to 100)',
        schema: { type: 'string' },
      },
    ],
    responses: {
      200: { description: 'The last few seconds', schema: 'AdmissionHealth' },
      401: noAdmin,
      422: invalid('Bad showtime list'),
      503: busy,
    },
  },
  // Operations
  {
    method: 'get',
    path: '/healthz',
    tag: 'Operations',
    summary: 'Liveness',
    responses: { 200: { description: 'The process answers', schema: 'Health' } },
  },
  {
    method: 'get',
    path: '/readyz',
    tag: 'Operations',
    summary: 'Readiness: the database answers',
    responses: {
      200: { description: 'Ready', schema: 'Readiness' },
      503: { description: 'The database does not answer', schema: 'Readiness', headers: ['Retry-After'] },
    },
  },
  {
    method: 'get',
    path: '/metrics',
    tag: 'Operations',
    summary: 'Prometheus metrics',
    responses: { 200: { description: 'Prometheus text format', contentType: 'text/plain' } },
  },
  {
    method: 'get',
    path: '/openapi.json',
    tag: 'Operations',
    summary: 'This description',
    responses: { 200: { description: 'OpenAPI 3.1' } },
  },
];

/**
 * Routes the edge's credential does not guard (core/src/http/service-token.ts, and the routes
 * registered before it in app.ts): every other one answers 401 SERVICE_TOKEN_REQUIRED without
 * X-Service-Token when CORE_SERVICE_TOKEN is set, as it must be in production.
 */
const SERVICE_OPEN = new Set(['/healthz', '/readyz', '/metrics', '/openapi.json', '/payments/callback']);
const serviceTokenHeader = {
  name: 'X-Service-Token',
  required: false,
  description: "The edge's credential (CORE_SERVICE_TOKEN): required on this route whenever the core has one set",
};

/** Operations whose route asks the admission check (core/src/http/admission.ts) first. */
const ADMITTED = new Set([`post /showtimes/${S_ID}/holds`, 'post /holds/{holdId}/checkout']);

/**
 * What every operation of a kind may answer, whatever its route: the body limit (every method,
 * DELETE and GET included), the media type, syntax and shape of a JSON body, a malformed query
 * value, and the admission check's rate limit on purchases.
 */
function commonAnswers(op: Operation<S, Tag, Sec>): Record<number, Answer<S>> {
  const answers: Record<number, Answer<S>> = {
    413: err('A body past the limit (256 KB), on any method', ['PAYLOAD_TOO_LARGE']),
  };
  if (op.body) {
    answers[400] = notJson;
    answers[415] = err('A body that is not application/json', ['UNSUPPORTED_MEDIA_TYPE']);
    answers[422] = invalid('Invalid body');
  }
  if (op.query) answers[422] = invalid('Invalid body or query value, or a query value given twice');
  if (!SERVICE_OPEN.has(op.path))
    answers[401] = err("Without the edge's X-Service-Token (when CORE_SERVICE_TOKEN is set)", [
      'SERVICE_TOKEN_REQUIRED',
    ]);
  if (ADMITTED.has(`${op.method} ${op.path}`))
    answers[429] = err(
      "Too many purchase requests for the buyer's admission; try again after Retry-After",
      ['RATE_LIMITED'],
      ['Retry-After'],
    );
  return answers;
}

export function buildCoreOpenApiDocument() {
  return buildOpenApi<S, Tag, Sec>({
    info: {
      title: 'Flash-sale seat core',
      version: '1.0.0',
      description:
        "The core's API on port 8081: seats, holds, checkout and bookings (called by the edge with the buyer's access token), the payment gateway's webhook, " +
        'and the operators\' catalog, fares, refund policy and sale control. Errors are always {"error":{"code","message",…}}; 503 carries Retry-After. ' +
        'When SERVICE_TOKEN is set every route but health, metrics, this document and the webhook also needs it in X-Service-Token. ' +
        "The edge's public API is described at the edge's /api/openapi.json. See docs/architecture.md.",
    },
    servers: [{ url: '/', description: 'The core (port 8081)' }],
    tags: [
      { name: 'Buyers', description: 'Seat maps, holds and bookings (the access token the edge issued)' },
      { name: 'Payments', description: "Checkout and the gateway's webhook" },
      {
        name: 'Catalog',
        description: 'Venues, halls, showtimes, fares, refund policy and bookings (Bearer ADMIN_TOKEN)',
      },
      {
        name: 'Sale control',
        description: 'The sale switch, room settings, the turn ledger and the audit log (Bearer ADMIN_TOKEN)',
      },
      { name: 'Operations', description: 'Health, readiness, metrics, this description' },
    ],
    components,
    requests: [
      'HoldRequest',
      'CheckoutRequest',
      'PaymentWebhook',
      'VenueRequest',
      'HallRequest',
      'ShowtimeRequest',
      'ShowtimeChanges',
      'FareClassChange',
      'SeatClassChangeRequest',
      'RefundPolicyRequest',
      'RoomUpdate',
      'TurnRequest',
      'EndTurnRequest',
    ],
    operations: operations.map((op) =>
      SERVICE_OPEN.has(op.path) ? op : { ...op, headers: [...(op.headers ?? []), serviceTokenHeader] },
    ),
    commonAnswers,
    pathParameters: {
      showtimeId: { description: 'Showtime id', schema: { type: 'integer', minimum: 1, maximum: 999_999_999_999_999 } },
      holdId: { description: 'Hold id', schema: { type: 'string', format: 'uuid' } },
      bookingId: { description: 'Booking id', schema: { type: 'string', format: 'uuid' } },
      venueId: { description: 'Venue id', schema: { type: 'integer', minimum: 1, maximum: 999_999_999_999_999 } },
      fareClass: {
        description: 'Fare class code (1-16 capital letters, digits or underscores)',
        schema: { type: 'string', pattern: '^[A-Z][A-Z0-9_]{0,15}$' },
      },
    },
    securitySchemes: {
      access: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: "The buyer's access token (issued by the edge at admission)",
      },
      admin: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN' },
    },
  });
}

let served: string | null = null;
/** The document as served (built once: zod writes the schemas on first use). */
export const coreOpenApiJson = (): string => (served ??= JSON.stringify(buildCoreOpenApiDocument()));
