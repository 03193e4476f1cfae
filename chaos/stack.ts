/**
 * The whole stack for a fault run: a private PostgreSQL cluster, a private redis-server (no
 * persistence, so a restart loses everything, the worst case) and the four services (core,
 * payment sandbox, edge, queue ticker) as separate processes on free loopback ports.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSigningJwk } from '../lib/token-keys';
import { freePort, waitForPing } from '../queue/test/redis-servers';
import { startPrivatePostgres, type PrivatePostgres } from './private-postgres';
import { answers200, serviceProcess, type ServiceProcess } from './processes';

export interface RestartableRedisServer {
  port: number;
  url: string;
  start(): Promise<void>;
  /** SIGKILL: with no persistence, everything Redis held is gone. */
  kill(): Promise<void>;
}

function redisServer(port: number, dir: string): RestartableRedisServer {
  let child: ChildProcess | null = null;
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      child = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
        { stdio: 'ignore' },
      );
      await waitForPing(port);
    },
    async kill() {
      const running = child;
      child = null;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      await new Promise<void>((resolve) => {
        running.once('exit', () => resolve());
        running.kill('SIGKILL');
      });
    },
  };
}

export interface ChaosStack {
  postgres: PrivatePostgres;
  redis: RestartableRedisServer;
  core: ServiceProcess;
  edge: ServiceProcess;
  sandbox: ServiceProcess;
  ticker: ServiceProcess;
  coreUrl: string;
  edgeUrl: string;
  paymentsUrl: string;
  adminToken: string;
  /** The core answers only callers that carry it (the edge, the ticker, the suite's set-up). */
  serviceToken: string;
  paymentApiKey: string;
  databaseUrl: string;
  /** REDIS_KEY_PREFIX of every service ('' unless the run asked for a prefixed deployment). */
  keyPrefix: string;
  /** The edge's environment, for a test that starts another edge beside it (same keys and Redis). */
  edgeEnv: Record<string, string>;
  logDir: string;
  close(): Promise<void>;
}

export async function startChaosStack(options: { logLevel?: string; keyPrefix?: string } = {}): Promise<ChaosStack> {
  const logDir = mkdtempSync(join(tmpdir(), 'wr-chaos-logs-'));
  const postgres = await startPrivatePostgres();
  const redis = redisServer(await freePort(), logDir);
  await redis.start();
  const [corePort, edgePort, paymentPort] = [await freePort(), await freePort(), await freePort()];
  const coreUrl = `http://127.0.0.1:${corePort}`;
  const edgeUrl = `http://127.0.0.1:${edgePort}`;
  const paymentsUrl = `http://127.0.0.1:${paymentPort}`;
  const adminToken = 'chaos-admin-token-0123456789';
  const serviceToken = 'chaos-service-token-0123456789';
  const paymentApiKey = 'sk_test_chaos';
  const webhookSecret = 'whsec_chaos';
  const signingKey = JSON.stringify(await generateSigningJwk('chaos-1'));
  const logLevel = options.logLevel ?? 'warn';
  const keyPrefix = options.keyPrefix ?? '';
  const common = {
    NODE_ENV: 'development',
    LOG_LEVEL: logLevel,
    ADMIN_TOKEN: adminToken,
    REDIS_URL: redis.url,
    ...(keyPrefix ? { REDIS_KEY_PREFIX: keyPrefix } : {}),
  };

  const core = serviceProcess({
    name: 'core',
    entry: 'core/src/main.ts',
    logDir,
    env: {
      ...common,
      CORE_PORT: String(corePort),
      CORE_HOST: '127.0.0.1',
      DATABASE_URL: postgres.url,
      DATABASE_POOL_SIZE: '10',
      PAYMENT_URL: paymentsUrl,
      PAYMENT_API_KEY: paymentApiKey,
      PAYMENT_WEBHOOK_SECRET: webhookSecret,
      PUBLIC_URL: edgeUrl,
      TOKEN_SIGNING_KEY: signingKey,
      RECONCILE_AFTER_MS: '2000',
      CORE_SERVICE_TOKEN: serviceToken,
    },
    ready: () => answers200(`${coreUrl}/readyz`),
  });
  const sandbox = serviceProcess({
    name: 'sandbox',
    entry: 'payment-sandbox/src/node.ts',
    logDir,
    env: {
      ...common,
      PAYMENT_PORT: String(paymentPort),
      PAYMENT_PUBLIC_URL: paymentsUrl,
      CORE_URL: coreUrl,
      PAYMENT_API_KEY: paymentApiKey,
      PAYMENT_WEBHOOK_SECRET: webhookSecret,
      PAYMENT_WEBHOOK_BASE_DELAY_MS: '200',
      PAYMENT_WEBHOOK_MAX_ATTEMPTS: '60',
    },
    ready: () => answers200(`${paymentsUrl}/healthz`),
  });
  const edgeEnv = {
    ...common,
    EDGE_PORT: String(edgePort),
    EDGE_HOST: '127.0.0.1',
    CORE_URL: coreUrl,
    TOKEN_SIGNING_KEY: signingKey,
    DEMO_LOGIN: '1',
    TRUST_PROXY: '1',
    DEMO_LOGIN_PER_MINUTE: '100000',
    FLOOD_POINTS: '1000',
    CORE_TIMEOUT_MS: '5000',
    CORE_SERVICE_TOKEN: serviceToken,
  };
  const edge = serviceProcess({
    name: 'edge',
    entry: 'edge/src/main.ts',
    logDir,
    env: edgeEnv,
    ready: () => answers200(`${edgeUrl}/healthz`),
  });
  let tickerStarted = false;
  const ticker = serviceProcess({
    name: 'ticker',
    entry: 'queue/src/ticker.ts',
    logDir,
    env: { ...common, CORE_URL: coreUrl, CORE_SERVICE_TOKEN: serviceToken, QUEUE_TICK_MS: '200' },
    // No port: alive a moment after spawning is all there is to wait for.
    ready: async () => {
      if (tickerStarted) return true;
      tickerStarted = true;
      await new Promise((resolve) => setTimeout(resolve, 500));
      return true;
    },
  });

  const services = [core, sandbox, edge, ticker];
  const close = async () => {
    for (const service of services) await service.stop().catch(() => {});
    await redis.kill();
    await postgres.destroy();
    if (!process.env.CHAOS_KEEP_LOGS) rmSync(logDir, { recursive: true, force: true });
  };
  try {
    for (const service of services) await service.start();
  } catch (error) {
    await close();
    throw error;
  }
  return {
    postgres,
    redis,
    core,
    edge,
    sandbox,
    ticker,
    coreUrl,
    edgeUrl,
    paymentsUrl,
    adminToken,
    serviceToken,
    paymentApiKey,
    databaseUrl: postgres.url,
    keyPrefix,
    edgeEnv,
    logDir,
    close,
  };
}
