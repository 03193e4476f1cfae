/**
 * Every failure a buyer or operator can meet, in words that say what happened and what to
 * do next (with when to retry, when the server said so). Never the system's internals.
 */
import { errorCode, type ApiResult } from './api';
import { duration } from './format';

function seatList(seats: unknown): string {
  if (!Array.isArray(seats) || seats.length === 0) return 'one of those seats';
  return `${seats.length === 1 ? 'seat' : 'seats'} ${seats.join(', ')}`;
}

export function explain(result: ApiResult<unknown>): string {
  const code = errorCode(result);
  const wait = result.retryAfterSeconds ? duration(result.retryAfterSeconds) : 'a few seconds';
  if (result.status === 0) return 'We cannot reach the ticket service. Check your connection; we will keep trying.';
  if (result.status === 429) return `Too many requests in a short time. Please wait ${wait} and try again.`;
  if (result.status === 503 || result.status === 502 || result.status === 504) return `The service is busy right now. We will try again in ${wait}.`;
  switch (code) {
    case 'TURN_ENDED':
      return 'Your turn to buy has ended (your purchase finished, or your time ran out). You can join the line again.';
    case 'TURN_EXPIRED':
      return 'Your turn has expired because the page did not check in for a while. You can join the line again, at the back.';
    case 'HOLD_EXPIRED':
      return 'The time to pay for these seats ran out, so they were released. Your turn goes on: please choose your seats again.';
    case 'SEATS_UNAVAILABLE':
      return `Sorry, someone else just took ${seatList(result.json?.error?.seats)}. The seat map has been refreshed: please pick again.`;
    case 'PLACES_UNAVAILABLE': {
      const left = result.json?.error?.available;
      return typeof left === 'number' && left > 0
        ? `Sorry, only ${left === 1 ? '1 place is' : `${left} places are`} left in that area. Please choose fewer.`
        : 'Sorry, that area has just sold out. The map has been refreshed.';
    }
    case 'SEAT_LIMIT_EXCEEDED':
      return 'You have reached the maximum number of seats one person can buy for this showing.';
    case 'SALE_NOT_OPEN':
      return 'Sales for this showing are not open at the moment.';
    case 'SHOWTIME_STARTED':
      return 'This showing has already started, so tickets are no longer on sale.';
    case 'HOLD_CONFIRMED':
      return 'These seats are already paid for.';
    case 'HOLD_CANCELLED':
      return 'This hold was cancelled. Please choose your seats again.';
    case 'MISSING_TOKEN':
    case 'TOKEN_EXPIRED':
    case 'INVALID_TOKEN':
      return 'Your time to buy has ended. Join the line again to get a new turn.';
    case 'NOT_YOUR_TOKEN':
    case 'NOT_YOUR_HOLD':
      return 'This page belongs to another buyer session. Reload the page to continue as yourself.';
    case 'ROUTE_NOT_FOUND':
      return 'Joining is not available on this site right now.';
  }
  const message = result.json?.error?.message;
  if (message) return `${message}.`;
  return `Something went wrong (${result.status}). Please try again.`;
}
