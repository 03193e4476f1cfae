/** Liveness, readiness (with each dependency's state) and Prometheus metrics. */
import { Hono, type MiddlewareHandler } from 'hono';
import type { CoreClient } from '../core-client';
import type { EdgeMetrics } from '../metrics';
import type { EdgeStore } from '../state/edge-store';
import type { EdgeEnv } from '../http-context';

async function probe(run: () => Promise<unknown>, timeoutMs: number): Promise<'ok' | 'down'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), timeoutMs)),
  );
  try {
    await Promise.race([run(), timeout]);
    return 'ok';
  } catch {
    return 'down';
  } finally {
    clearTimeout(timer);
  }
}

export interface OpsRouteDeps {
  edgeStore: EdgeStore;
  core: CoreClient;
  metrics: EdgeMetrics;
  /** /metrics names rooms, rates and failures: operators only (admin token or console session). */
  operatorAuth: MiddlewareHandler<EdgeEnv>;
}

export function opsRoutes(deps: OpsRouteDeps) {
  const app = new Hono<EdgeEnv>();

  app.get('/healthz', (c) => c.json({ status: 'ok' }));

  // Ready while either dependency answers: with Redis down admitted buyers still buy, with
  // the core down the queue still works. Pulling the edge out of rotation would end both.
  app.get('/readyz', async (c) => {
    const [redis, core] = await Promise.all([
      probe(() => deps.edgeStore.ping(), 1_000),
      probe(async () => {
        const { status } = await deps.core.getJson('/healthz');
        if (status !== 200) throw new Error(`core answered ${status}`);
      }, 2_000),
    ]);
    const status =
      redis === 'ok' && core === 'ok' ? 'ready' : redis === 'down' && core === 'down' ? 'not_ready' : 'degraded';
    if (status === 'not_ready') c.header('Retry-After', '5');
    return c.json({ status, redis, core }, status === 'not_ready' ? 503 : 200);
  });

  app.get('/metrics', deps.operatorAuth, (c) => {
    c.header('Content-Type', deps.metrics.registry.contentType);
    return c.body(deps.metrics.registry.render());
  });

  return app;
}
