import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import type { Sql } from 'postgres';
import { collectDefaultMetrics } from 'prom-client';
import { createAccessTokenVerifier } from '../../lib/access-token';
import { resolveTokenKeys } from '../../lib/token-config';
import type { TokenKeyMaterial } from '../../lib/token-keys';
import { createCoreApp } from './app';
import type { CoreConfig } from './config';
import { createCoreMetrics } from './metrics';

export interface RunningCore {
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Serves the core on Node. The caller owns the database handle (a server's pool or the
 * embedded PGlite), so the same entry serves `npm start`, the tests and the benchmark.
 */
export async function startCore(
  config: CoreConfig,
  deps: { sql: Sql; tokenKeys?: TokenKeyMaterial; defaultMetrics?: boolean },
): Promise<RunningCore> {
  const logger = pino({ name: 'core', level: config.logLevel });
  const metrics = createCoreMetrics();
  if (deps.defaultMetrics) collectDefaultMetrics({ register: metrics.registry, prefix: 'core_' });
  const tokenKeys = deps.tokenKeys ?? (await resolveTokenKeys(config));
  const app = createCoreApp({
    sql: deps.sql,
    logger,
    metrics,
    verifyAccessToken: createAccessTokenVerifier(tokenKeys),
    adminToken: config.adminToken,
  });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host;
  logger.info({ port }, 'core listening');
  return {
    url: `http://${host}:${port}`,
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
