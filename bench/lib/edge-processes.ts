/**
 * The edge as it runs in production, for the benchmarks' "1 process against N processes"
 * lines: the real entry (edge/src/main.ts) as a child process with EDGE_PROCESSES set, on a
 * free port, against the benchmark's Redis and signing key.
 */
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../queue/test/redis-servers';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface EdgeProcesses {
  url: string;
  processes: number;
  stop(): Promise<void>;
}

/** N for the comparison: one per core, as production's default (at least 2, so there is a comparison). */
export const clusterSize = () => Math.max(2, availableParallelism());

export async function startEdgeProcesses(processes: number, env: Record<string, string>): Promise<EdgeProcesses> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'edge/src/main.ts'], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      ...env,
      EDGE_PROCESSES: String(processes),
      EDGE_PORT: String(port),
      EDGE_HOST: '127.0.0.1',
    },
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 180_000;
  while (!/edge listening on/.test(output)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the edge (${processes} processes) did not start:\n${output.slice(-2_000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    processes,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * One warm-up and one measured run against the edge entry with one process and with
 * clusterSize() processes, in that order (the benchmark's own load, Redis and key).
 */
export async function byProcessCount(
  _seconds: number,
  measure: (url: string) => Promise<{ requestsPerSecond: number }>,
  env: Record<string, string>,
): Promise<{ processes: number; requestsPerSecond: number }[]> {
  const results = [];
  for (const processes of [1, clusterSize()]) {
    const edge = await startEdgeProcesses(processes, env);
    try {
      // Warm-up: JIT, caches and snapshots of every process (each verifies each token once, on
      // the thread pool), until two runs in a row agree within a fifth (at most six).
      let previous = 0;
      for (let round = 0; round < 6; round++) {
        const { requestsPerSecond } = await measure(edge.url);
        if (previous > 0 && Math.abs(requestsPerSecond - previous) / previous < 0.2) break;
        previous = requestsPerSecond;
      }
      results.push({ processes, requestsPerSecond: (await measure(edge.url)).requestsPerSecond });
    } finally {
      await edge.stop();
    }
  }
  return results;
}
