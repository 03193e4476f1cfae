import { execFile } from 'node:child_process';
import { mkdtemp, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { benchPlanning } from './bench-db';

const run = promisify(execFile);

/**
 * Runs a custom pgbench script and returns transactions per second (excluding connection time).
 * Its sessions plan as the core's connections do (benchPlanning), so "the same statements" are
 * planned the same.
 */
export async function pgbench(options: {
  databaseUrl: string;
  script: string;
  clients: number;
  seconds: number;
  variables?: Record<string, string | number>;
}): Promise<{ tps: number; output: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pgbench-'));
  const file = path.join(dir, 'script.sql');
  await writeFile(file, options.script);
  const url = new URL(options.databaseUrl);
  const args = [
    '-n',
    '-h',
    url.hostname,
    '-p',
    url.port || '5432',
    '-U',
    decodeURIComponent(url.username || 'postgres'),
    '-c',
    String(options.clients),
    '-j',
    '2',
    '-T',
    String(options.seconds),
    '-M',
    'prepared',
    '-f',
    file,
    ...Object.entries(options.variables ?? {}).flatMap(([key, value]) => ['-D', `${key}=${value}`]),
    url.pathname.slice(1),
  ];
  try {
    const { planCacheMode, sequentialScans } = benchPlanning();
    const planning = `-c plan_cache_mode=${planCacheMode} -c enable_seqscan=${sequentialScans ? 'on' : 'off'}`;
    const { stdout } = await run('pgbench', args, {
      maxBuffer: 10 * 1024 * 1024,
      env: { ...process.env, PGOPTIONS: `${process.env.PGOPTIONS ?? ''} ${planning}`.trim() },
    });
    const match = /tps = ([\d.]+) \((?:without initial connection time|excluding connections establishing)\)/.exec(
      stdout,
    );
    if (!match) throw new Error(`Could not read tps from pgbench:\n${stdout}`);
    return { tps: Number(match[1]), output: stdout };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
