/**
 * Private redis-server processes for tests that flush, restart or cluster Redis, so the
 * shared instance on 6379 is never touched by them.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';

const run = promisify(execFile);

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once a redis-server on `port` answers PING (at most about fifteen seconds: a machine busy with the whole suite took more than five to start one). */
export async function waitForPing(port: number): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    const probe = new Redis({
      port,
      host: '127.0.0.1',
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    probe.on('error', () => {}); // not up yet: the loop retries
    try {
      await probe.connect();
      await probe.ping();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      probe.disconnect();
    }
  }
  throw new Error(`redis-server on ${port} did not answer`);
}

export interface PrivateRedis {
  ports: number[];
  /** Stops and starts the same ports again: data and script cache are gone (nothing saved). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

async function startServers(
  count: number,
  extraArgs: (port: number, dir: string) => string[],
): Promise<PrivateRedis & { dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'wr-redis-'));
  const ports: number[] = [];
  const children: ChildProcess[] = [];
  const spawnOn = (port: number) =>
    spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--daemonize',
        'no',
        '--dir',
        dir,
        ...extraArgs(port, dir),
      ],
      { stdio: 'ignore' },
    );
  const stopChild = (child: ChildProcess) =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  for (let i = 0; i < count; i++) {
    const port = await freePort();
    ports.push(port);
    children.push(spawnOn(port));
  }
  await Promise.all(ports.map(waitForPing));
  return {
    dir,
    ports,
    async restart() {
      await Promise.all(children.map(stopChild));
      children.splice(0, children.length, ...ports.map(spawnOn));
      await Promise.all(ports.map(waitForPing));
    },
    async stop() {
      await Promise.all(children.map(stopChild));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function startPrivateRedis(): Promise<PrivateRedis> {
  return startServers(1, () => []);
}

/** Three masters, no replicas, all 16384 slots assigned. */
export async function startRedisCluster(): Promise<PrivateRedis> {
  const servers = await startServers(3, (port, dir) => [
    '--cluster-enabled',
    'yes',
    '--cluster-config-file',
    join(dir, `nodes-${port}.conf`),
    '--cluster-node-timeout',
    '2000',
  ]);
  try {
    await run('redis-cli', [
      '--cluster',
      'create',
      ...servers.ports.map((p) => `127.0.0.1:${p}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    for (let attempt = 0; attempt < 300; attempt++) {
      const { stdout } = await run('redis-cli', ['-p', String(servers.ports[0]), 'cluster', 'info']);
      if (stdout.includes('cluster_state:ok')) return servers;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('cluster did not reach cluster_state:ok');
  } catch (error) {
    await servers.stop();
    throw error;
  }
}
