/**
 * What a code means beyond its name, for docs/errors.md (`npm run build:docs`). The status
 * lives in the catalogue (error-codes.ts); a code without a note here is listed with none.
 */
import type { ErrorCode } from './error-codes';

export const ERROR_NOTES: Partial<Record<ErrorCode, string>> = {
  HTTP_ERROR: 'refused by the HTTP layer itself, with that status',
  INVALID_SIGNATURE: 'payment callback',
  SERVICE_TOKEN_REQUIRED: "the core without the edge's service token",
  WRONG_SHOWTIME: 'token for another showtime',
  ADDRESS_PLACE_LIMIT: 'join: this address has taken its places',
  VENUE_NOT_FOUND: 'operator: adding a hall to a venue that does not exist',
  QUEUE_ID_NOT_FOUND: 'operator lookup: not a queue id of that showtime',
  SEATS_UNAVAILABLE: 'with `seats`',
  NO_SEATS_TOGETHER: 'best available: no N seats together in one row, with `requested`, `maxTogether`, `available`',
  IDEMPOTENCY_KEY_IN_FLIGHT: 'with `Retry-After`',
  ROOM_CLOSED: 'a refusal of the waiting room',
  SOLD_OUT: 'a refusal of the waiting room',
  NOT_OFFERED: 'a refusal of the waiting room',
  DRAW_STALE: 'a refusal of the waiting room',
  NOT_OPENING: 'a refusal of the waiting room',
  COST_EXCEEDS_CAPACITY: 'a refusal of the waiting room',
  NOT_ADMITTED: 'a refusal of the waiting room',
  TURN_EXPIRED: 'join again',
  VALIDATION_FAILED: 'with `issues`',
  COUPLE_SEATS_SPLIT: 'one seat of a couple pair without the other, with `seats`: the missing partners',
  POW_REQUIRED: 'with `challenge` and `difficulty`',
  POW_INVALID: 'with `challenge` and `difficulty`',
  POW_EXPIRED: 'with `challenge` and `difficulty`',
  POW_REUSED: 'with `challenge` and `difficulty`',
  RATE_LIMITED: 'with `Retry-After`',
  LOCKED_OUT: 'with `Retry-After`',
  CLIENT_CLOSED_REQUEST:
    'the client left before the answer: the edge dropped the work; nobody reads it, metrics count it',
  INTERNAL: 'a bug; an outage is never a 500',
  BUSY: 'with `Retry-After`',
  DATABASE_UNAVAILABLE: 'with `Retry-After`',
  STORE_UNAVAILABLE: 'with `Retry-After`',
  QUEUE_UNAVAILABLE: 'with `Retry-After`',
  CORE_UNAVAILABLE: 'with `Retry-After`',
  PAYMENT_GATEWAY_UNAVAILABLE: 'with `Retry-After`',
  PAYMENT_UNKNOWN_YET: 'with `Retry-After`',
};
