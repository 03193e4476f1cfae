/**
 * What the pages say for every error code of the catalogue (lib/error-codes.ts), in words for
 * the person in front of the page: what happened and what to do next, never the system's
 * internals. The type makes it exhaustive: a code added to the catalogue does not compile
 * until it has its words here (and lib/error-codes.test.ts checks the two lists agree).
 * Codes a buyer's page should never meet (the core's service token, the gateway's webhook)
 * still get plain words, for the console and for whoever meets them anyway.
 */
import type { ErrorCode } from '../../../lib/errors';
import type { Locale } from '../../../lib/i18n/locale';
import type { ApiResult } from './api';
import { pageLocale } from './i18n';
import type { ErrorMessages, Message } from './message-types';
import { ERROR_MESSAGES_ZH } from './messages-zh-CN';

export type { ErrorMessages, Message };

function seatList(seats: unknown): string {
  if (!Array.isArray(seats) || seats.length === 0) return 'one of those seats';
  return `${seats.length === 1 ? 'seat' : 'seats'} ${seats.join(', ')}`;
}

const TRY_AGAIN = 'Please try again in a moment.';
const JOIN_AGAIN = 'You can join the line again.';
const RELOAD = 'Please reload the page and try again.';

export const ERROR_MESSAGES: ErrorMessages = {
  // What was sent could not be read.
  MALFORMED_JSON: `The page sent something the service could not read. ${RELOAD}`,
  IDEMPOTENCY_KEY_REQUIRED: `The payment request was incomplete. ${RELOAD}`,
  IDEMPOTENCY_KEY_INVALID: `The payment request was incomplete. ${RELOAD}`,
  HTTP_ERROR: `The service could not take that request. ${RELOAD}`,
  // Who you are.
  UNAUTHORIZED: 'Please sign in again: the sign-in was not accepted.',
  MISSING_TOKEN: 'Your time to buy has ended. Join the line again to get a new turn.',
  INVALID_TOKEN: 'Your time to buy has ended. Join the line again to get a new turn.',
  TOKEN_EXPIRED: 'Your time to buy has ended. Join the line again to get a new turn.',
  INVALID_SIGNATURE:
    'A payment message could not be verified, so it was ignored. Your payment is checked again with the payment provider.',
  SERVICE_TOKEN_REQUIRED: 'The ticket service only takes requests through this site. Please buy through the sale page.',
  // Known, not allowed.
  WRONG_SHOWTIME: 'That was for another showing. Open this showing from the list of showings.',
  NOT_YOUR_HOLD: 'This page belongs to another buyer session. Reload the page to continue as yourself.',
  NOT_YOUR_BOOKING:
    'This booking was made by another customer, so it cannot be shown or changed here. Your own bookings are under My bookings.',
  NOT_YOUR_TOKEN: 'This page belongs to another buyer session. Reload the page to continue as yourself.',
  CONSOLE_HEADER_REQUIRED:
    'The console refused that change because it did not come from the console page. Reload the console and try again.',
  ADDRESS_PLACE_LIMIT:
    'Too many places in this line were taken from your network. If you share a connection with many people, try from another one.',
  // Unknown.
  ROUTE_NOT_FOUND: 'Joining is not available on this site right now.',
  SHOWTIME_NOT_FOUND: 'We cannot find this showing. It may have been removed: go back to the list of showings.',
  HOLD_NOT_FOUND: 'We cannot find those held seats any more. Please choose your seats again.',
  BOOKING_NOT_FOUND: 'We cannot find this booking. Check the booking reference, or open it from your bookings.',
  ROOM_NOT_FOUND: 'This showing has no waiting line yet. Try again shortly.',
  VENUE_NOT_FOUND: 'That venue does not exist any more. Reload the console and pick the venue again.',
  QUEUE_ID_NOT_FOUND:
    'No place in this line has that queue id. Check it for mistyped characters (it has 8, such as K7QM-2XPD).',
  // Conflicts.
  NO_SEATS_TOGETHER: (r) => {
    const most = Number(r.json?.error?.maxTogether ?? 0);
    return most > 0
      ? `There are no longer that many seats together: at most ${most} sit side by side. Ask for fewer, or for seats apart.`
      : 'There are no longer that many seats together. Ask for seats apart, or choose them on the map.';
  },
  SEATS_UNAVAILABLE: (r) =>
    `Sorry, someone else just took ${seatList(r.json?.error?.seats)}. The seat map has been refreshed: please pick again.`,
  SALE_NOT_OPEN: 'Sales for this showing are not open at the moment.',
  SHOWTIME_STARTED: 'This showing has already started, so tickets are no longer on sale.',
  HOLD_CONFIRMED: 'These seats are already paid for.',
  HOLD_CANCELLED: 'This hold was cancelled. Please choose your seats again.',
  BOOKING_NOT_REFUNDABLE: 'This booking can no longer be refunded.',
  BOOKING_NOT_CANCELLABLE:
    'This booking can no longer be cancelled (it may be cancelled already, or the showing is too close).',
  IDEMPOTENCY_KEY_IN_FLIGHT: 'Your payment is already being set up. Please wait a moment; do not pay twice.',
  INVALID_SALE_TRANSITION:
    'The sale cannot go straight to that state from the one it is in now. Choose another change.',
  ALREADY_OPENED: 'The line has already opened, so its opening can no longer be changed.',
  DUPLICATE: 'That already exists. Use another name or open the existing one.',
  PLACES_UNAVAILABLE: (r) => {
    const left = r.json?.error?.available;
    return typeof left === 'number' && left > 0
      ? `Sorry, only ${left === 1 ? '1 place is' : `${left} places are`} left in that area. Please choose fewer.`
      : 'Sorry, that area has just sold out. The map has been refreshed.';
  },
  FARE_CLASS_IN_USE: 'This ticket type has already been sold, so it cannot be removed or changed that way.',
  FARE_CLASS_FULL: 'That ticket type has sold out.',
  ROOM_CLOSED: 'Sales for this showing have closed.',
  SOLD_OUT: 'This showing is sold out.',
  NOT_OFFERED: 'It is not your turn yet. Please keep this page open; we will tell you when it is.',
  DRAW_STALE: `The line was being set up while you acted. ${TRY_AGAIN}`,
  NOT_OPENING: 'The line is not opening right now, so there is nothing to draw.',
  COST_EXCEEDS_CAPACITY: 'That asks for more than this line can ever give at once. Choose fewer.',
  NOT_ADMITTED: 'It is not your turn to buy yet. Please wait in the line.',
  // Over.
  TURN_EXPIRED:
    'Your place in line has expired because this page did not check in for a while. You can join the line again, at the back.',
  TURN_ENDED: `Your turn to buy has ended (your purchase finished, or your time ran out). ${JOIN_AGAIN}`,
  HOLD_EXPIRED:
    'The time to pay for these seats ran out, so they were released. Your turn goes on: please choose your seats again.',
  // Too large, wrong kind.
  PAYLOAD_TOO_LARGE: 'That request was too large. Choose fewer seats and try again.',
  UNSUPPORTED_MEDIA_TYPE: `The page sent something the service could not read. ${RELOAD}`,
  // Not acceptable.
  VALIDATION_FAILED: (r) =>
    `Some of what was entered is not valid${r.json?.error?.message ? `: ${r.json.error.message}` : ''}. Please check it and try again.`,
  DUPLICATE_SEATS: 'The same seat was chosen twice. Please check your seats.',
  UNKNOWN_SEATS: 'Some of those seats do not exist in this hall. The seat map has been refreshed: please pick again.',
  SEAT_LIMIT_EXCEEDED: 'You have reached the maximum number of seats one person can buy for this showing.',
  COUPLE_SEATS_SPLIT: 'Couple seats are sold in pairs: choose both seats of the pair, or neither.',
  IDEMPOTENCY_KEY_REUSED: `That payment request did not match the one started before. ${RELOAD}`,
  CONSTRAINT_VIOLATED: 'That change would break a rule of the hall or the sale, so nothing was changed.',
  INVALID_VALUE: (r) => `One of the values is not allowed${r.json?.error?.message ? `: ${r.json.error.message}` : ''}.`,
  REFERENCE_NOT_FOUND: 'Something that change refers to does not exist (a hall or a showing). Check it and try again.',
  RETURN_URL_NOT_ALLOWED: 'The payment page cannot send you back to that address.',
  AMOUNT_REQUIRED: 'A price is needed for that.',
  UNKNOWN_FARE_CLASS: 'That ticket type does not exist for this showing. Reload the page to see the current ones.',
  INVALID_FARE_CLASS: 'That ticket type is not set up correctly. Check its name, price and places.',
  CAPACITY_REQUIRED: 'Standing and general-admission areas need a number of places.',
  SEATED_CLASS_CAPACITY:
    'Seated ticket types take their places from the seats, so they cannot have a number of places.',
  // Proof of work at join.
  POW_REQUIRED: 'Your browser needs a moment to show it is not a robot. Please keep the page open.',
  POW_INVALID: `Your browser's check did not pass. ${TRY_AGAIN}`,
  POW_EXPIRED: `Your browser's check took too long. ${TRY_AGAIN}`,
  POW_REUSED: `Your browser's check was already used. ${TRY_AGAIN}`,
  // Too many.
  RATE_LIMITED: 'Too many requests in a short time. Please wait a few seconds and try again.',
  LOCKED_OUT: 'Too many wrong attempts. Please wait a few minutes before you try again.',
  // The page went away before the answer (never shown: nobody is left to read it).
  CLIENT_CLOSED_REQUEST: `The request was cancelled before it was answered. ${TRY_AGAIN}`,
  // The service.
  INTERNAL: `Something went wrong on our side. ${TRY_AGAIN}`,
  PAYMENT_GATEWAY_REFUSED:
    'The payment provider refused to start this payment. Your seats stay held: try again, or choose another way to pay.',
  BUSY: 'The service is busy right now. We will try again in a few seconds.',
  DATABASE_UNAVAILABLE: 'The ticket service is briefly unavailable. We will try again in a few seconds.',
  STORE_UNAVAILABLE: 'The ticket service is briefly unavailable. We will try again in a few seconds.',
  QUEUE_UNAVAILABLE:
    'The waiting line is briefly unavailable; admissions are paused and your place is kept. We will try again shortly.',
  CORE_UNAVAILABLE:
    'The ticket service is briefly unavailable. Your turn and your place are kept; we will try again shortly.',
  PAYMENT_GATEWAY_UNAVAILABLE: 'The payment provider is not answering. Your seats stay held: try again in a moment.',
  PAYMENT_UNKNOWN_YET:
    'We are still waiting to hear from the payment provider. Please do not pay again; this page will update.',
};

/** The words for a code of the catalogue in the page's language, or null for a code the pages do not know. */
export function messageFor(
  code: string | null,
  result: ApiResult<unknown>,
  locale: Locale = pageLocale(),
): string | null {
  const table = ERROR_MESSAGES_BY_LOCALE[locale];
  if (code === null || !Object.hasOwn(table, code)) return null;
  const message = table[code as ErrorCode];
  return typeof message === 'function' ? message(result) : message;
}

/** One table per language; the type makes each complete (a new code does not compile until every language has it). */
export const ERROR_MESSAGES_BY_LOCALE: Record<Locale, ErrorMessages> = {
  en: ERROR_MESSAGES,
  'zh-CN': ERROR_MESSAGES_ZH,
};
