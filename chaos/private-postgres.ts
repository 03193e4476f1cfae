/**
 * A PostgreSQL cluster of its own for fault injection: initdb into a temporary directory owned
 * by the postgres user (initdb and pg_ctl refuse to run as root), started on a spare loopback
 * port with its socket in that directory, so restarting it never touches the shared server.
 */
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../queue/test/redis-servers';

const run = promisify(execFile);
const BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

export interface PrivatePostgres {
  port: number;
  url: string;
  /** The cluster's data directory (owned by the postgres user when run as root). */
  dataDir: string;
  /** `pg_ctl restart -m fast|immediate`: resolves once the server accepts connections again. */
  restart(mode: 'fast' | 'immediate'): Promise<void>;
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

async function asPostgres(command: string, args: string[]): Promise<string> {
  return (await runAsPostgres(join(BIN, command), args)).stdout;
}

/** Runs a program as the postgres user (as it is when not root), as PostgreSQL's tools insist. */
export async function runAsPostgres(
  program: string,
  args: string[],
  timeoutMs = 60_000,
): Promise<{ stdout: string; stderr: string }> {
  const asRoot = process.getuid?.() === 0;
  return asRoot
    ? await run('runuser', ['-u', 'postgres', '--', program, ...args], {
        timeout: timeoutMs,
        maxBuffer: 64 * 1024 * 1024,
      })
    : await run(program, args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
}

export const POSTGRES_BIN = BIN;

/** The postgres user's ids when running as root (files it must own); null otherwise. */
export async function postgresIds(): Promise<{ uid: number; gid: number } | null> {
  if (process.getuid?.() !== 0) return null;
  const { stdout: uid } = await run('id', ['-u', 'postgres']);
  const { stdout: gid } = await run('id', ['-g', 'postgres']);
  return { uid: Number(uid.trim()), gid: Number(gid.trim()) };
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'wr-chaos-pg-'));
  chmodSync(dir, 0o700);
  const ids = await postgresIds();
  if (ids) chownSync(dir, ids.uid, ids.gid);
  const data = join(dir, 'data');
  const port = await freePort();
  await asPostgres('initdb', [
    '-D',
    data,
    '-U',
    'postgres',
    '-A',
    'trust',
    '-E',
    'UTF8',
    '--no-sync',
    '--no-instructions',
  ]);
  // fsync and full-page writes are off: they protect against the machine losing power, which
  // no fault here does. synchronous_commit stays on: a server killed with `-m immediate` must
  // keep every commit it acknowledged (with it off, buyers saw a hold they had been given
  // answer 404 after the restart).
  const serverOptions = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=100`;
  const log = join(dir, 'server.log');
  const handle: PrivatePostgres = {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    dataDir: data,
    async start() {
      await asPostgres('pg_ctl', ['-D', data, '-o', serverOptions, '-l', log, '-w', '-t', '60', 'start']);
    },
    async stop(mode = 'fast') {
      await asPostgres('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']).catch(() => {});
    },
    async restart(mode) {
      await asPostgres('pg_ctl', ['-D', data, '-m', mode, '-o', serverOptions, '-l', log, '-w', '-t', '60', 'restart']);
    },
    async destroy() {
      await handle.stop('immediate');
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await handle.start();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return handle;
}
