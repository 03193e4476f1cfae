/**
 * Every failure a buyer or operator can meet, in words that say what happened and what to
 * do next (with when to retry, when the server said so), in the page's language. Never the
 * system's internals: the words for each code of the catalogue are in messages.ts.
 *
 * A page only says "we will try again" where it really does (polling, the seat map); after a
 * buyer's own action (hold, cancel, pay) it asks the buyer to try again instead: `action`.
 */
import { errorCode, isTransient, type ApiResult } from './api';
import { duration } from './format';
import { t } from './i18n';
import { messageFor } from './messages';

export function explain(result: ApiResult<unknown>, options: { action?: boolean } = {}): string {
  const code = errorCode(result);
  const wait = result.retryAfterSeconds ? duration(result.retryAfterSeconds) : t('time.aFewSeconds');
  if (result.status === 0) return options.action ? t('error.offlineAction') : t('error.offline');
  // Waits the server named beat the catalogue's words, which cannot know them.
  if (result.status === 429 && code !== 'LOCKED_OUT') return t('error.tooMany', { wait });
  if (result.status === 503 || result.status === 502 || result.status === 504)
    return t(options.action ? 'error.busyAction' : 'error.busyRetrying', { wait });
  if (options.action && isTransient(result)) return t('error.busyAction', { wait });
  const words = messageFor(code, result);
  if (words) return words;
  const message = result.json?.error?.message;
  if (message) return `${message}.`;
  return t('error.other', { status: result.status });
}
