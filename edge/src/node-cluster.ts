/**
 * Several edge processes on one port (EDGE_PROCESSES, node:cluster). The primary only keeps
 * the workers running: it forks N of them, replaces one that dies (after a pause that grows
 * while replacements keep dying young, so a worker that cannot start does not spin), and on
 * SIGTERM/SIGINT asks each to stop and waits, killing those still there after the grace.
 * Each worker is a whole edge (startEdge) with its own snapshot cache, token caches, flood
 * counts and proof-of-work governor; what must hold across them (the room's cap, the purchase
 * buckets, the join flood budget, one-time marks) lives in Redis. The kernel hands each new
 * connection to one worker (round robin in the primary on Linux).
 */
import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';

export interface EdgeProcessLogger {
  info(object: object, message?: string): void;
  warn(object: object, message?: string): void;
}

/** EDGE_PROCESSES when set; else one per core in production with Redis to share, else one. */
export function edgeProcessCount(config: {
  processes: number | null;
  production: boolean;
  redisUrl: string | null;
}): number {
  if (config.processes !== null) return config.processes;
  return config.production && config.redisUrl ? availableParallelism() : 1;
}

export interface PrimaryOptions {
  processes: number;
  logger: EdgeProcessLogger;
  /** How long a stopping worker may finish what it is answering before it is killed. */
  shutdownGraceMs?: number;
  /** The first replacement's pause; doubled for each worker that died within a minute of starting, up to 10 s. */
  restartDelayMs?: number;
}

export interface Primary {
  /** Resolves once every worker is listening. */
  ready: Promise<void>;
  workers(): Worker[];
  stop(): Promise<void>;
}

export function runPrimary(options: PrimaryOptions): Primary {
  const graceMs = options.shutdownGraceMs ?? 10_000;
  const startedAt = new Map<Worker, number>();
  let stopping = false;
  let youngDeaths = 0;
  let listening = 0;
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));

  function fork(): void {
    const worker = cluster.fork();
    startedAt.set(worker, Date.now());
    worker.once('listening', () => {
      listening++;
      if (listening === options.processes) markReady();
    });
  }

  cluster.on('exit', (worker, code, signal) => {
    const livedMs = Date.now() - (startedAt.get(worker) ?? Date.now());
    startedAt.delete(worker);
    if (stopping) return;
    youngDeaths = livedMs < 60_000 ? youngDeaths + 1 : 0;
    const delayMs = Math.min(10_000, (options.restartDelayMs ?? 100) * 2 ** Math.max(0, youngDeaths - 1));
    options.logger.warn(
      { worker: worker.process.pid, code, signal, livedMs, replaceInMs: delayMs },
      'edge process died; starting another',
    );
    setTimeout(() => !stopping && fork(), delayMs);
  });

  for (let i = 0; i < options.processes; i++) fork();

  return {
    ready,
    workers: () => Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined),
    async stop() {
      stopping = true;
      const running = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !w.isDead());
      await Promise.all(
        running.map(
          (worker) =>
            new Promise<void>((resolve) => {
              const timer = setTimeout(() => worker.process.kill('SIGKILL'), graceMs);
              worker.once('exit', () => {
                clearTimeout(timer);
                resolve();
              });
              worker.process.kill('SIGTERM');
            }),
        ),
      );
    },
  };
}

export const isClusterWorker = () => cluster.isWorker;
