/**
 * The `holds` benchmark's summary. Each ratio is paired: taken within a round between runs that
 * followed each other, then the median over rounds. A ratio of two medians taken from different
 * rounds would compare a quick minute of one with a slow minute of the other; on a shared
 * 2-core machine whose speed drifts by a factor of two, that is most of the figure.
 */
export interface HoldsFigures {
  /** pgbench, the bare conditional UPDATE and release, at the bench's client count. */
  bare: number[];
  /** The same at the core's pool size (the database sessions the service itself uses). */
  barePool: number[];
  /** pgbench, the statements the service sends, at the bench's client count. */
  same: number[];
  /** The same at the core's pool size. */
  samePool: number[];
  /** Successful holds per second through the core's HTTP API (each then cancelled). */
  service: number[];
  bestSame: number[];
  bestService: number[];
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Per-round ratios of `numerator` to `denominator`, then their median. */
export function pairedRatios(numerator: readonly number[], denominator: readonly number[]) {
  const rounds = numerator.map((value, i) => value / denominator[i]!);
  return { rounds, median: median(rounds) };
}

/**
 * The database's own limit in a round: the better of the bench's client count and the core's
 * pool size, so the service's smaller pool is never compared with a pgbench figure made slower
 * by more sessions than the service uses.
 */
export function betterOf(atClients: readonly number[], atPool: readonly number[]): number[] {
  return atClients.map((rate, i) => Math.max(rate, atPool[i] ?? 0));
}

export function holdsReport(
  figures: HoldsFigures,
  run: { rounds: number; seconds: number; clients: number; pool: number },
): string[] {
  const bare = betterOf(figures.bare, figures.barePool);
  const same = betterOf(figures.same, figures.samePool);
  const toBare = pairedRatios(figures.service, bare);
  const toBareAtClients = pairedRatios(figures.service, figures.bare);
  const toSame = pairedRatios(figures.service, same);
  const best = pairedRatios(figures.bestService, figures.bestSame);
  const bestToBare = pairedRatios(figures.bestService, bare);
  const bestToChosen = pairedRatios(figures.bestService, figures.service);
  const rate = (label: string, values: readonly number[], unit: string) =>
    `  ${label.padEnd(31)}${median(values).toFixed(0).padStart(7)} ${unit}`;
  const each = (ratios: { rounds: number[] }) => ratios.rounds.map((r) => r.toFixed(2)).join(', ');
  return [
    `  ${run.rounds} rounds, ${run.clients} clients, ${run.seconds}s each; the core's database pool: ${run.pool}; medians`,
    rate('core service (HTTP, wrk)', figures.service, 'successful holds/s (each then cancelled)'),
    rate(`pgbench, same statements (${run.clients})`, figures.same, 'hold+release/s'),
    rate(`pgbench, same statements (${run.pool})`, figures.samePool, 'hold+release/s'),
    rate(`pgbench, bare UPDATE (${run.clients})`, figures.bare, 'hold+release/s'),
    rate(`pgbench, bare UPDATE (${run.pool})`, figures.barePool, 'hold+release/s'),
    `  ratio to the same statements   ${toSame.median.toFixed(2)}   (target ≥ 0.50; rounds ${each(toSame)})`,
    `  ratio to the bare UPDATE       ${toBare.median.toFixed(2)}   (goal ≥ 0.35: what the guards, the hold record, the log and the outbox cost on top; rounds ${each(toBare)})`,
    `  … to the bare UPDATE at ${run.clients} clients only  ${toBareAtClients.median.toFixed(2)}   (how the goal was first measured; rounds ${each(toBareAtClients)})`,
    rate('best available (HTTP, wrk)', figures.bestService, 'successful holds/s'),
    rate('pgbench, best available', figures.bestSame, 'hold+release/s'),
    `  best: ratio to its statements  ${best.median.toFixed(2)};  to the bare UPDATE ${bestToBare.median.toFixed(2)};  to chosen seats through the service ${bestToChosen.median.toFixed(2)}`,
  ];
}
