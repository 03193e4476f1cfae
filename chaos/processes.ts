/**
 * The stack as separate operating-system processes, as it runs in production: each service is
 * its own `node --import tsx <entry>` with its own environment, so a fault can kill one of
 * them with SIGKILL (no cleanup, no goodbye) and start it again on the same port.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface ServiceProcess {
  name: string;
  /**
   * Starts the process and resolves once `ready` says yes (at most `startTimeoutMs`); `env`
   * adds to its environment for this start only (a test-only hook such as CORE_CRASH_AT).
   * `mayDieBy` names a signal the process may die of before it is seen ready: a crash point
   * can fire on the first request, before the 100 ms readiness poll answers; that death is
   * the fault happening, not a failed start (any other exit still throws).
   */
  start(options?: { env?: Record<string, string>; mayDieBy?: NodeJS.Signals }): Promise<void>;
  /** Resolves true once the process has exited by itself, false after `timeoutMs`. */
  exited(timeoutMs: number): Promise<boolean>;
  /** SIGKILL: the process dies mid-request, as with an OOM kill or a lost machine. */
  kill9(): Promise<void>;
  /** SIGTERM and wait (the service's own shutdown), for the end of a run. */
  stop(): Promise<void>;
  running(): boolean;
}

export interface ServiceOptions {
  name: string;
  entry: string;
  env: Record<string, string>;
  /** Resolves true once the service answers; polled every 100 ms. */
  ready: () => Promise<boolean>;
  logDir: string;
  startTimeoutMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The end of a service's log, for the error that says it would not start. */
function logTail(path: string, bytes = 2_000): string {
  try {
    const text = readFileSync(path, 'utf8');
    return text.slice(-bytes);
  } catch {
    return `(no log at ${path})`;
  }
}

export function serviceProcess(options: ServiceOptions): ServiceProcess {
  let child: ChildProcess | null = null;
  let log: WriteStream | null = null;
  const exited = () => !child || child.exitCode !== null || child.signalCode !== null;

  async function waitForExit(process: ChildProcess): Promise<void> {
    if (process.exitCode !== null || process.signalCode !== null) return;
    await new Promise<void>((resolve) => process.once('exit', () => resolve()));
  }

  return {
    name: options.name,
    running: () => !exited(),
    async start(startOptions = {}) {
      if (!exited()) return;
      log ??= createWriteStream(join(options.logDir, `${options.name}.log`), { flags: 'a' });
      log.write(`--- start ${new Date().toISOString()}\n`);
      child = spawn(process.execPath, ['--import', 'tsx', options.entry], {
        cwd: REPO_ROOT,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...options.env, ...startOptions.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout!.pipe(log, { end: false });
      child.stderr!.pipe(log, { end: false });
      const deadline = Date.now() + (options.startTimeoutMs ?? 60_000);
      while (Date.now() < deadline) {
        if (exited()) {
          if (startOptions.mayDieBy && child?.signalCode === startOptions.mayDieBy) return;
          throw new Error(
            `${options.name} exited while starting:\n${logTail(join(options.logDir, `${options.name}.log`))}`,
          );
        }
        if (await options.ready().catch(() => false)) return;
        await sleep(100);
      }
      throw new Error(`${options.name} did not become ready within ${options.startTimeoutMs ?? 60_000} ms`);
    },
    async exited(timeoutMs) {
      const running = child;
      if (!running || exited()) return true;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
      const gone = waitForExit(running).then(() => true as const);
      const result = await Promise.race([gone, timedOut]);
      clearTimeout(timer);
      return result;
    },
    async kill9() {
      const running = child;
      if (!running || exited()) return;
      running.kill('SIGKILL');
      await waitForExit(running);
    },
    async stop() {
      const running = child;
      if (running && !exited()) {
        running.kill('SIGTERM');
        const timer = setTimeout(() => running.kill('SIGKILL'), 5_000);
        await waitForExit(running);
        clearTimeout(timer);
      }
      log?.end();
      log = null;
    },
  };
}

/** True when GET `url` answers 200 within `timeoutMs`. */
export async function answers200(url: string, timeoutMs = 1_000): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}
