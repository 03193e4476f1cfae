/**
 * What a journey run is asked to do, and what its reports are told about it. Apart from
 * run-journey.ts so the reports (report.ts, html-report.ts) can name these types without
 * importing the module that imports them.
 */
import type { LiveFigures } from './setup';

export interface JourneyRunOptions {
  buyers: number;
  durationSeconds: number;
  rampSeconds: number;
  rows: number;
  columns: number;
  party: number;
  holdTtlMs: number;
  capacity: number;
  admitPerMinute: number;
  sessionTtlSeconds: number;
  seatPreference: 'best' | 'random';
  /** Proof of work at join: every buyer solves the edge's challenge at this difficulty (bits). */
  powDifficulty?: number;
  /** Target a running stack (edge URL) instead of starting one in process. */
  baseUrl?: string | null;
  coreUrl?: string | null;
  paymentsUrl?: string | null;
  showtimeId?: string | null;
  adminToken?: string;
  /** The core's CORE_SERVICE_TOKEN, when the run creates its sale at a core that requires it. */
  serviceToken?: string;
  paymentApiKey?: string;
  /** The in-process edge's SHED_LAG_MS (0: never shed); its own default when unset. */
  shedLagMs?: number;
  databaseUrl?: string | null;
  redisUrl?: string | null;
  keyPrefix?: string;
  reportDir?: string | null;
  /** Look for the booking events in the Redis stream too (off when other relays share the database). */
  checkStream?: boolean;
  /** Progress lines: 'tty' redraws one line, 'lines' prints one every 5 s, 'off' says nothing. */
  progress?: 'tty' | 'lines' | 'off';
}

export type ReportContext = {
  showtimeId: string;
  options: JourneyRunOptions;
  live: LiveFigures;
  edgeUrl: string;
  description: string;
};
