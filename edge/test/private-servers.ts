/**
 * Private servers for fault tests: a redis-server on a port of its own that can be killed
 * and restarted on the same port, and the stub core served over HTTP so it can be stopped.
 * The shared Redis and core are never touched.
 */
import { serve } from '@hono/node-server';
import { spawn, type ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { freePort, waitForPing } from '../../queue/test/redis-servers';

export interface RestartableRedis {
  port: number;
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

export async function startRestartableRedis(): Promise<RestartableRedis> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  const handle: RestartableRedis = {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      child = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        { stdio: 'ignore' },
      );
      await waitForPing(port);
    },
    async stop() {
      const running = child;
      child = null;
      if (!running || running.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        running.once('exit', () => resolve());
        running.kill('SIGKILL');
      });
    },
  };
  await handle.start();
  return handle;
}

export interface RestartableHttp {
  port: number;
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

/** Serves a fetch handler on a fixed free port; `stop` closes it so connections are refused. */
export async function serveRestartable(
  fetchHandler: (request: Request) => Response | Promise<Response>,
): Promise<RestartableHttp> {
  const port = await freePort();
  let server: ReturnType<typeof serve> | null = null;
  const handle: RestartableHttp = {
    port,
    url: `http://127.0.0.1:${port}`,
    async start() {
      server = await new Promise<ReturnType<typeof serve>>((resolve) => {
        const s = serve({ fetch: fetchHandler, port, hostname: '127.0.0.1' }, () => resolve(s));
      });
      const address = server.address() as AddressInfo;
      if (address.port !== port) throw new Error('port changed');
    },
    async stop() {
      const running = server;
      server = null;
      if (!running) return;
      await new Promise<void>((resolve) => {
        running.close(() => resolve());
        (running as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
    },
  };
  await handle.start();
  return handle;
}
