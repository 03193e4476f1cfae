/**
 * `npm run loadtest:k6 -- <script> [--cpu] [k6 run options…]`: runs loadtest/<script>.js with
 * the k6 on PATH (or K6_BIN), after creating loadtest/reports/ for its JSON summary (k6 cannot
 * create a folder, and drops a summary it cannot write).
 *
 * With `--cpu`, k6 runs under /usr/bin/time and the figure that sizes a generator fleet is
 * printed: k6's CPU seconds (user + system) minus what `k6 inspect` of the same script costs
 * (reading and compiling it, which a longer run does not repeat), divided by `http_reqs`. The
 * k6 version goes beside it: goja's speed changes between releases.
 *
 *   npm run loadtest:k6 -- hold-race --cpu -e BASE_URL=http://127.0.0.1:8080 -e PEAK_RPS=300 -e DURATION=60s
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const k6 = process.env.K6_BIN || 'k6';
const [name, ...rest] = process.argv.slice(2);
const cpu = rest.includes('--cpu');
const k6Options = rest.filter((arg) => arg !== '--cpu');
if (!name) {
  console.error('usage: npm run loadtest:k6 -- <flash-sale|hold-race|poll-storm|opening> [--cpu] [k6 run options]');
  process.exit(2);
}
const script = join(here, `${name.replace(/\.js$/, '')}.js`);
if (!existsSync(script)) {
  console.error(`no such script: ${script}`);
  process.exit(2);
}

const reports = resolve(here, 'reports');
mkdirSync(reports, { recursive: true });
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const summaryFile = join(reports, `k6-${name}-${stamp}.json`);
const env = { ...process.env, SUMMARY_DIR: reports, SUMMARY_FILE: summaryFile };

/** Runs a command, under /usr/bin/time when asked; returns its exit code and CPU seconds. */
function run(args: string[], timed: boolean, quiet = false): { code: number; cpuSeconds: number | null } {
  const timeFile = join(reports, `.time-${process.pid}`);
  const command = timed ? ['/usr/bin/time', '-f', '%U %S', '-o', timeFile, k6, ...args] : [k6, ...args];
  const result = spawnSync(command[0]!, command.slice(1), { env, stdio: quiet ? 'ignore' : 'inherit' });
  if (result.error) throw result.error;
  let cpuSeconds: number | null = null;
  if (timed && existsSync(timeFile)) {
    // The last line: /usr/bin/time prefixes "Command exited with non-zero status" when k6 fails.
    const [user, system] = readFileSync(timeFile, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
    cpuSeconds = user! + system!;
    rmSync(timeFile);
  }
  return { code: result.status ?? 1, cpuSeconds };
}

const ran = run(['run', ...k6Options, script], cpu);
if (cpu) {
  // -e options change what the script plans (VUs, stages), so inspect sees the same ones.
  const envOptions = k6Options.flatMap((arg, i) =>
    arg === '-e' || arg === '--env' ? [arg, k6Options[i + 1]!] : arg.startsWith('--env=') ? [arg] : [],
  );
  const compile = run(['inspect', ...envOptions, script], true, true);
  const summary = existsSync(summaryFile) ? JSON.parse(readFileSync(summaryFile, 'utf8')) : null;
  const requests: number | undefined = summary?.metrics?.http_reqs?.values?.count;
  const version = spawnSync(k6, ['version'], { encoding: 'utf8' }).stdout.trim();
  if (!requests || ran.cpuSeconds === null || compile.cpuSeconds === null) {
    console.error(
      `k6 CPU per request: not measured (http_reqs ${requests ?? 'missing'}, CPU ${ran.cpuSeconds}, inspect ${compile.cpuSeconds})`,
    );
  } else {
    const perRequestMs = ((ran.cpuSeconds - compile.cpuSeconds) * 1000) / requests;
    console.log(
      `k6 CPU per request (${name}): (${ran.cpuSeconds.toFixed(2)} s − inspect ${compile.cpuSeconds.toFixed(2)} s) / ${requests} http_reqs = ${perRequestMs.toFixed(3)} ms  [${version}]`,
    );
  }
}
process.exit(ran.code);
