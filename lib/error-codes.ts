/**
 * Every error code the core's and the edge's HTTP API answer with, and its status: the one
 * catalogue. `new AppError(code, message)` takes its status from here; the queue's refusals
 * map onto it exhaustively (edge/src/rooms/room-gateway.ts); lib/error-codes.test.ts checks
 * that every code thrown in the source and the browser's messages name codes of this
 * catalogue; docs/errors.md is generated from it (`npm run build:docs`). The payment sandbox
 * stands in for an outside gateway and keeps its own codes (payment-sandbox/README.md).
 */
export const ERROR_STATUS = {
  // 400: the request cannot be read.
  MALFORMED_JSON: 400,
  IDEMPOTENCY_KEY_REQUIRED: 400,
  IDEMPOTENCY_KEY_INVALID: 400,
  /** Hono's own refusals (HTTPException) keep their status; 400 is the usual one. */
  HTTP_ERROR: 400,
  // 401: no usable credentials.
  UNAUTHORIZED: 401,
  MISSING_TOKEN: 401,
  INVALID_TOKEN: 401,
  TOKEN_EXPIRED: 401,
  INVALID_SIGNATURE: 401,
  SERVICE_TOKEN_REQUIRED: 401,
  // 403: known, but not allowed.
  WRONG_SHOWTIME: 403,
  NOT_YOUR_HOLD: 403,
  NOT_YOUR_BOOKING: 403,
  NOT_YOUR_TOKEN: 403,
  CONSOLE_HEADER_REQUIRED: 403,
  ADDRESS_PLACE_LIMIT: 403,
  // 404: unknown.
  ROUTE_NOT_FOUND: 404,
  SHOWTIME_NOT_FOUND: 404,
  HOLD_NOT_FOUND: 404,
  BOOKING_NOT_FOUND: 404,
  ROOM_NOT_FOUND: 404,
  VENUE_NOT_FOUND: 404,
  QUEUE_ID_NOT_FOUND: 404,
  // 409: conflicts with the current state.
  SEATS_UNAVAILABLE: 409,
  NO_SEATS_TOGETHER: 409,
  SALE_NOT_OPEN: 409,
  SHOWTIME_STARTED: 409,
  HOLD_CONFIRMED: 409,
  HOLD_CANCELLED: 409,
  BOOKING_NOT_REFUNDABLE: 409,
  BOOKING_NOT_CANCELLABLE: 409,
  IDEMPOTENCY_KEY_IN_FLIGHT: 409,
  INVALID_SALE_TRANSITION: 409,
  ALREADY_OPENED: 409,
  DUPLICATE: 409,
  PLACES_UNAVAILABLE: 409,
  FARE_CLASS_IN_USE: 409,
  FARE_CLASS_FULL: 409,
  // Queue refusals answered as they are (see room-gateway.ts).
  ROOM_CLOSED: 409,
  SOLD_OUT: 409,
  NOT_OFFERED: 409,
  DRAW_STALE: 409,
  NOT_OPENING: 409,
  COST_EXCEEDS_CAPACITY: 409,
  NOT_ADMITTED: 409,
  // 410: the turn or the hold is over.
  TURN_EXPIRED: 410,
  TURN_ENDED: 410,
  HOLD_EXPIRED: 410,
  // 413, 415.
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  // 422: well-formed, but not acceptable.
  VALIDATION_FAILED: 422,
  DUPLICATE_SEATS: 422,
  UNKNOWN_SEATS: 422,
  SEAT_LIMIT_EXCEEDED: 422,
  COUPLE_SEATS_SPLIT: 422,
  IDEMPOTENCY_KEY_REUSED: 422,
  CONSTRAINT_VIOLATED: 422,
  INVALID_VALUE: 422,
  REFERENCE_NOT_FOUND: 422,
  RETURN_URL_NOT_ALLOWED: 422,
  AMOUNT_REQUIRED: 422,
  UNKNOWN_FARE_CLASS: 422,
  INVALID_FARE_CLASS: 422,
  CAPACITY_REQUIRED: 422,
  SEATED_CLASS_CAPACITY: 422,
  // 428: proof of work at join.
  POW_REQUIRED: 428,
  POW_INVALID: 428,
  POW_EXPIRED: 428,
  POW_REUSED: 428,
  // 429: too many.
  RATE_LIMITED: 429,
  LOCKED_OUT: 429,
  // 499: the client went away before the answer (the edge drops its work; nobody reads this).
  CLIENT_CLOSED_REQUEST: 499,
  // 500, 502, 503.
  INTERNAL: 500,
  PAYMENT_GATEWAY_REFUSED: 502,
  BUSY: 503,
  DATABASE_UNAVAILABLE: 503,
  STORE_UNAVAILABLE: 503,
  QUEUE_UNAVAILABLE: 503,
  CORE_UNAVAILABLE: 503,
  PAYMENT_GATEWAY_UNAVAILABLE: 503,
  PAYMENT_UNKNOWN_YET: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export type ErrorStatus = (typeof ERROR_STATUS)[ErrorCode];

/** The catalogued codes answered with `S`: what `notFound(…)`, `conflict(…)` and the others accept. */
export type CodeWithStatus<S extends ErrorStatus> = {
  [K in ErrorCode]: (typeof ERROR_STATUS)[K] extends S ? K : never;
}[ErrorCode];

export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_STATUS, code);
}
