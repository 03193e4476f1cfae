import { Hono } from 'hono';
import { createErrorHandler, jsonBodyLimit, notFoundHandler } from '../../lib/http';
import { createApiRoutes } from './api-routes';
import { resolveConfig, type SandboxConfig, type SandboxConfigInput } from './config';
import type { Faults } from './faults';
import { createPageRoutes } from './page-routes';
import { PaymentService } from './payments';
import { PaymentStore } from './store';
import { WebhookDispatcher, type Clock, type Logger, type Scheduler } from './webhook-dispatcher';

export type PaymentSandboxOptions = {
  config?: SandboxConfigInput;
  /** Used for webhooks only (tests pass a recorder or a failing fetch). */
  fetch?: typeof fetch;
  clock?: Clock;
  /** Jitter source for retry backoff. */
  random?: () => number;
  logger?: Logger;
  scheduler?: Scheduler;
};

export type PaymentSandbox = {
  app: Hono;
  config: SandboxConfig;
  service: PaymentService;
  dispatcher: WebhookDispatcher;
  store: PaymentStore;
  /** Expires pending sessions whose time is up now (the interval sweep does this too). */
  sweepExpired(): number;
  /** Stops the sweep and the dispatcher (pending deliveries are abandoned). */
  close(): void;
};

const silentLogger: Logger = { info() {}, warn() {}, error() {} };

/** Timers that do not keep a process alive on their own (Node); plain timers elsewhere. */
export const unrefScheduler: Scheduler = {
  setTimeout(fn, ms) {
    const handle = setTimeout(fn, ms) as unknown as { unref?: () => void };
    handle.unref?.();
    return handle;
  },
  clearTimeout(handle) {
    clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
};

/**
 * Builds the payment sandbox: a test-mode gateway with sessions, a hosted pay page, signed
 * webhooks with retries and fault switches, a query API and idempotent refunds. Runtime
 * capabilities (fetch, clock, timers, randomness) are injected; nothing here is Node-only.
 */
export function createPaymentSandbox(options: PaymentSandboxOptions = {}): PaymentSandbox {
  const config = resolveConfig(options.config);
  const clock = options.clock ?? { now: () => Date.now() };
  const logger = options.logger ?? silentLogger;
  const scheduler = options.scheduler ?? unrefScheduler;
  const fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));

  let globalFaults: Faults = {};
  const store = new PaymentStore(config.maxPayments);
  const dispatcher = new WebhookDispatcher({
    url: config.webhookUrl,
    secrets: config.webhookSecrets,
    config: config.webhook,
    maxEvents: config.maxEvents,
    fetch: fetchImpl,
    clock,
    random: options.random ?? Math.random,
    logger,
    scheduler,
  });
  const service = new PaymentService({ store, dispatcher, config, clock, globalFaults: () => globalFaults });

  const app = new Hono();
  app.onError(createErrorHandler((error, c) => logger.error({ err: error, path: c.req.path }, 'unexpected error')));
  app.notFound(notFoundHandler);
  app.use('/v1/*', jsonBodyLimit(config.maxBodyBytes));
  app.use('/pay/*', jsonBodyLimit(4 * 1024));

  app.get('/healthz', (c) =>
    c.json({ status: 'ok', payments: store.size, evicted: store.evicted, webhooks: dispatcher.stats() }),
  );
  app.route(
    '/v1',
    createApiRoutes({
      apiKey: config.apiKey,
      service,
      dispatcher,
      faults: { get: () => globalFaults, set: (next) => void (globalFaults = next) },
      sleep: (ms) => new Promise((resolve) => scheduler.setTimeout(resolve, ms)),
    }),
  );
  app.route('/pay', createPageRoutes(service));

  let sweep: unknown = null;
  const scheduleSweep = () => {
    sweep = scheduler.setTimeout(() => {
      service.sweepExpired();
      scheduleSweep();
    }, config.expirySweepIntervalMs);
  };
  if (config.expirySweepIntervalMs > 0) scheduleSweep();

  return {
    app,
    config,
    service,
    dispatcher,
    store,
    sweepExpired: () => service.sweepExpired(),
    close() {
      if (sweep !== null) scheduler.clearTimeout(sweep);
      sweep = null;
      dispatcher.close();
    },
  };
}
