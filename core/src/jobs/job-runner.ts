import type { Logger } from 'pino';
import type { Sql } from 'postgres';
import type { BookingEventSink } from '../events/event-sink';
import type { PaymentGateway } from '../payments/gateway-client';
import type { FairnessJournal } from '../../../queue/src/fairness-journal';
import { copyAllJournals } from '../fairness/fairness-copier';
import { compensate } from './compensation';
import { relayWithRecovery } from './outbox-relay';
import { reconcilePendingPayments } from './reconciler';
import { DEFAULT_RETENTION, runRetention, type RetentionSettings } from './retention';
import { runRefundCommands } from './refund-worker';
import {
  announceSoldOutShowtimes,
  purgeExpiredIdempotencyKeys,
  purgePublishedOutbox,
  sweepExpiredHolds,
} from './sweeper';

export interface JobSettings {
  sweepEveryMs: number;
  relayEveryMs: number;
  reconcileEveryMs: number;
  /** A payment pending longer than this is asked about at the gateway. */
  reconcileAfterMs: number;
  refundEveryMs: number;
  compensateEveryMs: number;
  compensationGraceMs: number;
  retentionEveryMs: number;
  retention: RetentionSettings;
  /** The rooms' fairness journals into the admission log. */
  fairnessCopyEveryMs: number;
}

export const DEFAULT_JOB_SETTINGS: JobSettings = {
  sweepEveryMs: 1_000,
  relayEveryMs: 200,
  reconcileEveryMs: 5_000,
  reconcileAfterMs: 60_000,
  refundEveryMs: 2_000,
  compensateEveryMs: 30_000,
  compensationGraceMs: 60_000,
  retentionEveryMs: 60_000,
  retention: DEFAULT_RETENTION,
  fairnessCopyEveryMs: 200,
};

export interface JobDeps {
  sql: Sql;
  gateway: PaymentGateway;
  /** Where the outbox relay publishes; without one, events wait in the outbox. */
  sink: BookingEventSink | null;
  /** The waiting room's fairness journals; none (no room store): nothing to copy. */
  fairnessJournal?: FairnessJournal | null;
  logger: Logger;
  settings?: Partial<JobSettings>;
}

/** Every background job as a named function, so tests can run one pass of each directly. */
export function backgroundJobs(deps: JobDeps) {
  const s = { ...DEFAULT_JOB_SETTINGS, ...(deps.settings ?? {}) };
  return {
    settings: s,
    jobs: {
      sweeper: async () => {
        const expired = await sweepExpiredHolds(deps.sql);
        await announceSoldOutShowtimes(deps.sql);
        await purgeExpiredIdempotencyKeys(deps.sql);
        await purgePublishedOutbox(deps.sql);
        return expired;
      },
      relay: async () => {
        const sink = deps.sink;
        if (!sink) return 0;
        return relayWithRecovery(deps.sql, sink, {
          onRequeue: (why, rows) =>
            deps.logger.warn(
              { job: 'relay', why, rows },
              'booking events lost by the stream: publishing them again from the outbox',
            ),
        });
      },
      reconciler: async () =>
        (
          await reconcilePendingPayments(deps.sql, deps.gateway, {
            pendingAfterMs: s.reconcileAfterMs,
            recheckAfterMs: Math.max(s.reconcileEveryMs, 1000),
          })
        ).settled,
      refunds: async () => (await runRefundCommands(deps.sql, deps.gateway)).refunded,
      compensation: async () => (await compensate(deps.sql, { graceMs: s.compensationGraceMs })).repaired,
      retention: async () => runRetention(deps.sql, s.retention),
      fairness: async () => {
        const journal = deps.fairnessJournal;
        return journal ? copyAllJournals({ sql: deps.sql, journal }) : 0;
      },
    },
    intervals: {
      sweeper: s.sweepEveryMs,
      relay: s.relayEveryMs,
      reconciler: s.reconcileEveryMs,
      refunds: s.refundEveryMs,
      compensation: s.compensateEveryMs,
      retention: s.retentionEveryMs,
      fairness: s.fairnessCopyEveryMs,
    },
  };
}

/**
 * Runs each job on its own timer (a pass never overlaps itself). A failing pass is logged and
 * retried at the next tick: a database or Redis outage pauses the jobs, it does not kill them.
 */
export function startBackgroundJobs(deps: JobDeps) {
  const { jobs, intervals } = backgroundJobs(deps);
  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;
  const running = new Set<Promise<unknown>>();

  for (const [name, job] of Object.entries(jobs) as [keyof typeof jobs, () => Promise<number>][]) {
    const loop = () => {
      if (stopped) return;
      const pass = job()
        .then((count) => {
          if (count > 0) deps.logger.debug({ job: name, count }, 'job pass');
        })
        .catch((error: unknown) => deps.logger.warn({ job: name, err: error }, 'job pass failed'))
        .finally(() => {
          running.delete(pass);
          if (!stopped) {
            const timer = setTimeout(() => {
              timers.delete(timer);
              loop();
            }, intervals[name]);
            timers.add(timer);
          }
        });
      running.add(pass);
    };
    loop();
  }

  return {
    async stop() {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      await Promise.allSettled([...running]);
    },
  };
}
