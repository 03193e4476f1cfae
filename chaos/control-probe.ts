/**
 * A control for recovery times: a bare node:http server in a process of its own, probed in
 * the same instant as the stack. It does no work, so how late it answers is what the machine
 * itself adds (CPU starved by the buyers, the services restarting, other jobs): on a loaded
 * 2-core machine a probe of the stack can fail for seconds after a component is back only
 * because everything is slow, and the control shows that as load rather than as a slow
 * recovery.
 */
import { spawn } from 'node:child_process';
import { freePort } from '../queue/test/redis-servers';
import { answers200 } from './processes';

const SERVER = "require('node:http').createServer((q, s) => s.end('ok')).listen(Number(process.argv[1]), '127.0.0.1')";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface ControlProbe {
  /** The bare server's process id (a test stops it to show a starved machine reads as lag). */
  pid: number;
  /** Round trip of one request to the bare server, in ms (the timeout when it did not answer). */
  probe(timeoutMs?: number): Promise<number>;
  close(): Promise<void>;
}

export async function startControlProbe(): Promise<ControlProbe> {
  const port = await freePort();
  const child = spawn(process.execPath, ['-e', SERVER, String(port)], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}/`;
  for (let attempt = 0; attempt < 100 && !(await answers200(url)); attempt++) await sleep(50);
  return {
    pid: child.pid!,
    async probe(timeoutMs = 5_000) {
      const sentAt = performance.now();
      const ok = await answers200(url, timeoutMs);
      return ok ? performance.now() - sentAt : timeoutMs;
    },
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      });
    },
  };
}
