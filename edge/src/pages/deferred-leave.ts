/**
 * A leave beacon cannot tell a closed tab from a reload: both fire `pagehide`, and the
 * beacon may even reach the edge after the reloaded page was requested. So every render of
 * the sale page gets a view id, the beacon names the view it leaves from, and a leave is
 * carried out only if, after a short grace period, that view is still the buyer's latest
 * one for the showtime. A reload (or another tab opened later) keeps the place; a closed
 * tab gives it up well before the claim window would have found the buyer abandoned.
 * Per process: a reload served by another process does not cancel it; that buyer joins
 * again at the back, and the sale page says so in plain words.
 */
export interface DeferredLeaveOptions {
  graceMs: number;
  leave: (showtimeId: string, customerId: string) => Promise<unknown>;
  onError?: (error: unknown) => void;
  /** Buyers remembered per process (200,000); past it the least recently seen is forgotten. */
  maxEntries?: number;
  /**
   * 'oldest' (default): forget the least recently seen buyer. 'all' wipes the map, as this
   * once did: kept only for the test that shows what it broke (a buyer who just reloaded
   * lost the record, and their old page's late beacon then took the place away).
   */
  eviction?: 'oldest' | 'all';
}

export const VIEW_ID = /^[A-Za-z0-9_-]{8,64}$/;

export function createDeferredLeaves(options: DeferredLeaveOptions) {
  const latestView = new Map<string, string>();
  const key = (showtimeId: string, customerId: string) => `${showtimeId}\n${customerId}`;
  const maxEntries = options.maxEntries ?? 200_000;
  // A Map iterates in insertion order: deleting before setting moves a buyer to the end, so
  // the first key is always the least recently seen.
  const remember = (k: string, viewId: string) => {
    latestView.delete(k);
    if (latestView.size >= maxEntries) {
      if (options.eviction === 'all') latestView.clear();
      else latestView.delete(latestView.keys().next().value!);
    }
    latestView.set(k, viewId);
  };

  return {
    /** A page was rendered (for a known buyer, or `null` before the first sign-in). */
    viewed(showtimeId: string, customerId: string | null): string {
      const viewId = crypto.randomUUID();
      if (customerId) remember(key(showtimeId, customerId), viewId);
      return viewId;
    },

    /**
     * The beacon of `viewId`. Resolves when the leave ran or was dropped (Workers keep the
     * isolate alive with waitUntil). True when the buyer left.
     */
    async schedule(showtimeId: string, customerId: string, viewId: string): Promise<boolean> {
      const k = key(showtimeId, customerId);
      // No view on record: the page was rendered before the buyer signed in. Any later render
      // has registered itself, so an unknown view can only be the latest one.
      const latest = latestView.get(k);
      if (latest !== undefined && latest !== viewId) return false;
      remember(k, viewId);
      await new Promise((resolve) => setTimeout(resolve, options.graceMs));
      if (latestView.get(k) !== viewId) return false;
      latestView.delete(k);
      try {
        await options.leave(showtimeId, customerId);
        return true;
      } catch (error) {
        options.onError?.(error);
        return false;
      }
    },
  };
}
