/**
 * Every failure a buyer or operator can meet, in words that say what happened and what to
 * do next (with when to retry, when the server said so). Never the system's internals: the
 * words for each code of the catalogue are in messages.ts.
 */
import { errorCode, type ApiResult } from './api';
import { duration } from './format';
import { messageFor } from './messages';

export function explain(result: ApiResult<unknown>): string {
  const code = errorCode(result);
  const wait = result.retryAfterSeconds ? duration(result.retryAfterSeconds) : 'a few seconds';
  if (result.status === 0) return 'We cannot reach the ticket service. Check your connection; we will keep trying.';
  // Waits the server named beat the catalogue's words, which cannot know them.
  if (result.status === 429 && code !== 'LOCKED_OUT') return `Too many requests in a short time. Please wait ${wait} and try again.`;
  if (result.status === 503 || result.status === 502 || result.status === 504) return `The service is busy right now. We will try again in ${wait}.`;
  const words = messageFor(code, result);
  if (words) return words;
  const message = result.json?.error?.message;
  if (message) return `${message}.`;
  return `Something went wrong (${result.status}). Please try again.`;
}
