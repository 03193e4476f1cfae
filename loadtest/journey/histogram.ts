/**
 * A log-linear latency histogram (about 2 % relative precision from 10 µs to minutes): fixed
 * memory however many samples, mergeable, percentiles read from bucket bounds.
 */
const GROWTH = 1.02;
const MIN_MS = 0.01;
const LOG_GROWTH = Math.log(GROWTH);

export class Histogram {
  private readonly counts = new Map<number, number>();
  count = 0;
  sum = 0;
  max = 0;

  record(ms: number): void {
    const value = Math.max(ms, MIN_MS);
    const bucket = Math.floor(Math.log(value / MIN_MS) / LOG_GROWTH);
    this.counts.set(bucket, (this.counts.get(bucket) ?? 0) + 1);
    this.count++;
    this.sum += ms;
    if (ms > this.max) this.max = ms;
  }

  merge(other: Histogram): void {
    for (const [bucket, n] of other.counts) this.counts.set(bucket, (this.counts.get(bucket) ?? 0) + n);
    this.count += other.count;
    this.sum += other.sum;
    this.max = Math.max(this.max, other.max);
  }

  /** The upper bound of the bucket holding the q-quantile (0 < q ≤ 1); 0 when empty. */
  percentile(q: number): number {
    if (this.count === 0) return 0;
    const rank = Math.ceil(q * this.count);
    let seen = 0;
    for (const bucket of [...this.counts.keys()].sort((a, b) => a - b)) {
      seen += this.counts.get(bucket)!;
      if (seen >= rank) return Math.min(this.max, MIN_MS * GROWTH ** (bucket + 1));
    }
    return this.max;
  }

  mean(): number {
    return this.count === 0 ? 0 : this.sum / this.count;
  }
}
