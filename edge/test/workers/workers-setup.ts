/**
 * Global setup for the workerd project: starts support-servers.ts (Upstash REST shim in
 * front of the real Redis, stub core) as a Node child process, hands their addresses to the
 * Worker's bindings, and deletes this run's key namespace afterwards (never a flush).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    upstashUrl: string;
    upstashToken: string;
    coreUrl: string;
    signingKey: string;
    workerKeyPrefix: string;
    workerShowtimes: number[];
  }
}

export default async function setup(project: TestProject) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'edge/test/workers/support-servers.ts'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`support servers exited with ${code}`)));
    createInterface({ input: child.stdout! }).once('line', resolve);
  });
  const servers = JSON.parse(line) as {
    upstashUrl: string;
    upstashToken: string;
    coreUrl: string;
    signingKey: string;
    showtimes: number[];
  };
  const prefix = `t:workers:${randomBytes(4).toString('hex')}:`;
  project.provide('upstashUrl', servers.upstashUrl);
  project.provide('upstashToken', servers.upstashToken);
  project.provide('coreUrl', servers.coreUrl);
  project.provide('signingKey', servers.signingKey);
  project.provide('workerKeyPrefix', prefix);
  project.provide('workerShowtimes', servers.showtimes);

  return async function teardown() {
    // Through the shim, so no Redis client is loaded here: SCAN the prefix, UNLINK what matched.
    const command = async (args: string[]) => {
      const response = await fetch(servers.upstashUrl, {
        method: 'POST',
        headers: { authorization: `Bearer ${servers.upstashToken}` },
        body: JSON.stringify(args),
      });
      return ((await response.json()) as { result: unknown }).result;
    };
    let cursor = '0';
    do {
      const [next, keys] = (await command(['SCAN', cursor, 'MATCH', `${prefix}*`, 'COUNT', '1000'])) as [
        string,
        string[],
      ];
      cursor = next;
      if (keys.length > 0) await command(['UNLINK', ...keys]);
    } while (cursor !== '0');
    child.removeAllListeners('exit');
    child.kill('SIGTERM');
  };
}
