import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import type { Sql } from 'postgres';
import { collectDefaultMetrics } from 'prom-client';
import { createAccessTokenVerifier } from '../../lib/access-token';
import { createCustomerAccessVerifier } from '../../lib/customer-access-token';
import { resolveTokenKeys } from '../../lib/token-config';
import type { TokenKeyMaterial } from '../../lib/token-keys';
import { createCoreApp } from './app';
import type { CoreConfig } from './config';
import type { BookingEventSink } from './events/event-sink';
import { createFairnessJournal } from '../../queue/src/fairness-journal';
import { startBackgroundJobs, type JobSettings } from './jobs/job-runner';
import { registerRetentionGauges } from './jobs/retention';
import { createCoreMetrics, registerBacklogGauges } from './metrics';
import { createGatewayClient, type PaymentGateway } from './payments/gateway-client';
import { createAdmissionCheck } from './http/admission';
import type { ScriptStore } from '../../queue/src/index';
import { createSeatGate } from './gate/seat-gate';
import { applyEventsToGate, createGateEventsConsumer, type GateEventsRedis } from './gate/gate-events';
import type { BookingEvent } from '../../lib/booking-events';
import type { ClaimOwner } from './checkout/claim-owner';

export interface RunningCore {
  url: string;
  port: number;
  close(): Promise<void>;
}

export interface CoreRuntimeDeps {
  sql: Sql;
  tokenKeys?: TokenKeyMaterial;
  gateway?: PaymentGateway;
  /** Where the outbox relay publishes (a Redis Stream, or in process when embedded). */
  eventSink?: BookingEventSink | null;
  jobSettings?: Partial<JobSettings>;
  defaultMetrics?: boolean;
  /** The waiting room's store (Redis, or the in-process store when embedded) for the core's own admission check. */
  admissionStore?: ScriptStore | null;
  /** Where the seat gate lives (with SEAT_GATE on): a fail-fast Redis; none, the database alone. */
  seatGateStore?: ScriptStore | null;
  /** Where the gate reads booking events from (the `booking-events` stream); none, only its checks keep it in step. */
  seatGateEventsRedis?: GateEventsRedis | null;
  /** Or, embedded without Redis, the in-process event sink the gate listens to. */
  seatGateEventsSource?: { subscribe(listener: (events: BookingEvent[]) => void): unknown } | null;
  /** This process's lock of life (checkout/claim-owner.ts): a checkout it claimed and never finished is taken over once it is gone. */
  claimOwner?: ClaimOwner | null;
}

/**
 * Serves the core on Node, and runs its background jobs when it has an event sink and jobs are
 * enabled. The caller owns the database handle (a server's pool or the embedded PGlite), so the
 * same entry serves `npm start`, the tests and the benchmark.
 */
export async function startCore(config: CoreConfig, deps: CoreRuntimeDeps): Promise<RunningCore> {
  const logger = pino({ name: 'core', level: config.logLevel });
  for (const warning of config.warnings ?? []) logger.warn(`UNSAFE CONFIGURATION: ${warning}`);
  const metrics = createCoreMetrics();
  if (deps.defaultMetrics) collectDefaultMetrics({ register: metrics.registry, prefix: 'core_' });
  registerBacklogGauges(metrics.registry, deps.sql);
  registerRetentionGauges(metrics.registry, deps.sql);
  const tokenKeys = deps.tokenKeys ?? (await resolveTokenKeys(config));
  const gateway = deps.gateway ?? createGatewayClient({ baseUrl: config.paymentUrl, apiKey: config.paymentApiKey });
  const seatGate =
    config.seatGate && deps.seatGateStore
      ? createSeatGate({
          sql: deps.sql,
          store: deps.seatGateStore,
          keyPrefix: config.redisKeyPrefix,
          registry: metrics.registry,
          settings: { checkEveryMs: config.seatGateCheckMs },
          logger,
        })
      : null;
  const gateEvents =
    seatGate && deps.seatGateEventsRedis
      ? createGateEventsConsumer({
          redis: deps.seatGateEventsRedis,
          gate: seatGate,
          keyPrefix: config.redisKeyPrefix,
          onError: (error) => logger.warn({ err: error }, 'seat gate: reading booking events failed'),
        })
      : null;
  const fairnessJournal = deps.admissionStore
    ? createFairnessJournal({ store: deps.admissionStore, keyPrefix: config.redisKeyPrefix })
    : null;
  const app = createCoreApp({
    sql: deps.sql,
    logger,
    metrics,
    verifyAccessToken: createAccessTokenVerifier(tokenKeys),
    verifyCustomerAccess: createCustomerAccessVerifier(tokenKeys),
    adminToken: config.adminToken,
    gateway,
    webhookSecrets: config.webhookSecrets,
    publicBaseUrl: config.publicUrl,
    serviceToken: config.serviceToken,
    seatGate,
    admission: deps.admissionStore
      ? createAdmissionCheck({ store: deps.admissionStore, keyPrefix: config.redisKeyPrefix, metrics })
      : null,
    fairnessJournal,
    claimOwner: deps.claimOwner?.id ?? null,
  });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, () => resolve(s));
  });
  const jobs = config.jobsEnabled
    ? startBackgroundJobs({
        sql: deps.sql,
        gateway,
        sink: deps.eventSink ?? null,
        fairnessJournal,
        logger,
        settings: { reconcileAfterMs: config.reconcileAfterMs, ...(deps.jobSettings ?? {}) },
      })
    : null;
  seatGate?.start();
  gateEvents?.start();
  if (seatGate && !gateEvents) {
    deps.seatGateEventsSource?.subscribe((events) => {
      applyEventsToGate(seatGate, events).catch((error) =>
        logger.warn({ err: error }, 'seat gate: applying booking events failed'),
      );
    });
  }
  const { port } = server.address() as AddressInfo;
  const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host;
  logger.info({ port, jobs: Boolean(jobs), seatGate: Boolean(seatGate) }, 'core listening');
  return {
    url: `http://${host}:${port}`,
    port,
    async close() {
      gateEvents?.stop();
      await seatGate?.stop();
      await jobs?.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        if ('closeAllConnections' in server) (server as { closeAllConnections(): void }).closeAllConnections();
      });
    },
  };
}
