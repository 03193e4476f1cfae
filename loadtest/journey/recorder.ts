/**
 * What a run measured: per endpoint (requests, answers by status, a latency histogram), per
 * second (requests, answers, latency, admissions, bookings) and the journey's own counters
 * (admitted, holds won, conflicts, rate-limited answers, time in queue).
 */
import { Histogram } from './histogram';

export interface EndpointStats {
  sent: number;
  statuses: Map<number, number>;
  latency: Histogram;
  firstAtMs: number;
  lastAtMs: number;
}

export interface SecondSample {
  second: number;
  sent: number;
  answered: number;
  failed: number;
  latency: Histogram;
  admitted: number;
  booked: number;
  /** Filled in by the sampler: the room and the seats at this second. */
  waiting?: number;
  active?: number;
  seatsAvailable?: number;
  seatsHeld?: number;
  seatsBooked?: number;
}

/** Answers that are not failures: 2xx, and the conflicts and limits a buyer expects. */
export const isExpectedStatus = (status: number) =>
  (status >= 200 && status < 300) || status === 409 || status === 410 || status === 429;

export class Recorder {
  readonly startedAtMs = Date.now();
  readonly endpoints = new Map<string, EndpointStats>();
  readonly seconds: SecondSample[] = [];
  readonly counters = new Map<string, number>();
  readonly queueTime = new Histogram();
  readonly journeyTime = new Histogram();
  readonly admissionsAtMs: number[] = [];
  inFlight = 0;

  private secondAt(nowMs: number): SecondSample {
    const index = Math.floor((nowMs - this.startedAtMs) / 1000);
    while (this.seconds.length <= index) {
      this.seconds.push({
        second: this.seconds.length,
        sent: 0,
        answered: 0,
        failed: 0,
        latency: new Histogram(),
        admitted: 0,
        booked: 0,
      });
    }
    return this.seconds[index]!;
  }

  sent(endpoint: string, nowMs: number): void {
    let stats = this.endpoints.get(endpoint);
    if (!stats) {
      stats = { sent: 0, statuses: new Map(), latency: new Histogram(), firstAtMs: nowMs, lastAtMs: nowMs };
      this.endpoints.set(endpoint, stats);
    }
    stats.sent++;
    this.inFlight++;
    this.secondAt(nowMs).sent++;
  }

  answered(endpoint: string, status: number, latencyMs: number, nowMs: number): void {
    const stats = this.endpoints.get(endpoint)!;
    stats.statuses.set(status, (stats.statuses.get(status) ?? 0) + 1);
    stats.latency.record(latencyMs);
    stats.lastAtMs = nowMs;
    this.inFlight--;
    const second = this.secondAt(nowMs);
    if (isExpectedStatus(status)) second.answered++;
    else second.failed++;
    second.latency.record(latencyMs);
  }

  count(name: string, by = 1): void {
    this.counters.set(name, (this.counters.get(name) ?? 0) + by);
  }

  event(type: string, value: number | undefined, nowMs: number): void {
    this.count(type, type === 'seats_held' && value !== undefined ? value : 1);
    if (type === 'admitted') {
      this.admissionsAtMs.push(nowMs);
      this.secondAt(nowMs).admitted++;
    }
    if (type === 'queue_time' && value !== undefined) this.queueTime.record(value);
    if (type === 'booked') {
      this.secondAt(nowMs).booked++;
      if (value !== undefined) this.journeyTime.record(value);
    }
  }

  sample(nowMs: number, values: Partial<SecondSample>): void {
    Object.assign(this.secondAt(nowMs), values);
  }

  totalSent(): number {
    let total = 0;
    for (const stats of this.endpoints.values()) total += stats.sent;
    return total;
  }

  /** Most admissions inside any 60-second window (what the room's per-minute rate bounds). */
  maxAdmissionsPerMinute(): number {
    const times = [...this.admissionsAtMs].sort((a, b) => a - b);
    let best = 0;
    let start = 0;
    for (let end = 0; end < times.length; end++) {
      while (times[end]! - times[start]! >= 60_000) start++;
      best = Math.max(best, end - start + 1);
    }
    return best;
  }
}
