/**
 * Progress to the front of the line, and when a new place is worth saying out loud. The
 * starting place is kept by the page (sessionStorage) so a reload does not restart the bar.
 */

/** Share of the way from the starting place to the front, 0.02..1 (never an empty bar). */
export function progressShare(startPosition: number, position: number): number {
  if (startPosition <= 1) return 1;
  const done = (startPosition - position) / (startPosition - 1);
  return Math.max(0.02, Math.min(1, done));
}

/**
 * Whether a new place is news for a screen reader: the first one, any change in the last ten,
 * or a move of at least a tenth of the way since the last announcement. Every poll would
 * be noise; never would be silence.
 */
export function positionIsNews(lastAnnounced: number | null, position: number): boolean {
  if (lastAnnounced === null) return true;
  if (position === lastAnnounced) return false;
  if (position <= 10) return true;
  return Math.abs(lastAnnounced - position) >= Math.max(1, Math.round(lastAnnounced / 10));
}
