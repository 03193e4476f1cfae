/**
 * The join receipt (docs/fairness.md): kept in this browser per showtime and offered as a
 * download, so the buyer can check their place on /fairness after the sale, or hand it to
 * anyone who runs `npm run verify-fairness`.
 */
import { byId, show } from '../core/dom';

const key = (showtimeId: string) => `fairness-receipt:${showtimeId}`;

function offer(showtimeId: string, receipt: string) {
  const link = byId<HTMLAnchorElement>('receipt-download');
  link.href = `data:text/plain;charset=utf-8,${encodeURIComponent(`${receipt}\n`)}`;
  link.download = `receipt-showtime-${showtimeId}.txt`;
  byId<HTMLAnchorElement>('receipt-check').href = `/fairness?showtime=${encodeURIComponent(showtimeId)}`;
  show('receipt-note', true);
}

/** A join answered with a receipt: the first one is kept (it carries the earliest join). */
export function keepReceipt(showtimeId: string, receipt: string | undefined) {
  if (!receipt) return;
  try {
    if (!localStorage.getItem(key(showtimeId))) localStorage.setItem(key(showtimeId), receipt);
    offer(showtimeId, localStorage.getItem(key(showtimeId)) ?? receipt);
  } catch {
    offer(showtimeId, receipt); // storage refused (private mode): offered for this visit only
  }
}

/** A receipt kept from an earlier visit is offered again. */
export function offerKeptReceipt(showtimeId: string) {
  try {
    const kept = localStorage.getItem(key(showtimeId));
    if (kept) offer(showtimeId, kept);
  } catch {
    // nothing kept
  }
}
