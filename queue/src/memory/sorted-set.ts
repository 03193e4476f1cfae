/**
 * A sorted set ordered like Redis's: by score, then by member (byte order; the room's ids
 * are ASCII, where JS string order is byte order). Kept as a sorted array with binary
 * search, which is plenty for one process's rooms.
 */
export class SortedSet {
  private readonly scores = new Map<string, number>();
  private entries: { member: string; score: number }[] = [];

  get size(): number {
    return this.scores.size;
  }

  private static before(a: { member: string; score: number }, score: number, member: string): boolean {
    return a.score < score || (a.score === score && a.member < member);
  }

  /** Index of the first entry not before (score, member). */
  private lowerBound(score: number, member = ''): number {
    let low = 0;
    let high = this.entries.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (SortedSet.before(this.entries[mid]!, score, member)) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  score(member: string): number | undefined {
    return this.scores.get(member);
  }

  /** Returns 1 when the member is new. */
  add(member: string, score: number): number {
    const existed = this.remove(member);
    this.scores.set(member, score);
    this.entries.splice(this.lowerBound(score, member), 0, { member, score });
    return existed ? 0 : 1;
  }

  remove(member: string): number {
    const score = this.scores.get(member);
    if (score === undefined) return 0;
    this.entries.splice(this.lowerBound(score, member), 1);
    this.scores.delete(member);
    return 1;
  }

  rank(member: string): number | undefined {
    const score = this.scores.get(member);
    return score === undefined ? undefined : this.lowerBound(score, member);
  }

  first(): { member: string; score: number } | undefined {
    return this.entries[0];
  }

  last(): { member: string; score: number } | undefined {
    return this.entries[this.entries.length - 1];
  }

  popMin(): { member: string; score: number } | undefined {
    const head = this.entries.shift();
    if (head) this.scores.delete(head.member);
    return head;
  }

  /** ZREMRANGEBYSCORE key -inf max: removes and counts. */
  removeUpTo(maxScore: number): number {
    let count = 0;
    while (this.entries.length > count && this.entries[count]!.score <= maxScore) count++;
    for (const { member } of this.entries.splice(0, count)) this.scores.delete(member);
    return count;
  }

  /** ZRANGE key index index WITHSCORES. */
  at(index: number): { member: string; score: number } | undefined {
    return this.entries[index];
  }

  /** ZRANGEBYSCORE key score score LIMIT 0 1: the first member with exactly this score. */
  firstWithScore(score: number): string | undefined {
    const entry = this.entries[this.lowerBound(score)];
    return entry && entry.score === score ? entry.member : undefined;
  }

  /** ZRANGEBYSCORE key -inf max. */
  membersUpTo(maxScore: number): string[] {
    const out: string[] = [];
    for (const entry of this.entries) {
      if (entry.score > maxScore) break;
      out.push(entry.member);
    }
    return out;
  }

  /** ZCOUNT key min +inf. */
  countFrom(minScore: number): number {
    return this.entries.length - this.lowerBound(minScore);
  }

  members(): string[] {
    return this.entries.map((entry) => entry.member);
  }
}
