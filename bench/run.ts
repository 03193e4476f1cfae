/**
 * `npm run bench -- <name> [args]` runs bench/<name>.ts, whose default export is
 * `(args: string[]) => Promise<void>`. Every benchmark prints its figure next to a physical
 * limit measured in the same run (pgbench, redis-benchmark, bare node:http) and the ratio.
 * With `--record` anywhere in the arguments, what each benchmark printed is appended to
 * bench/results.md with the date and the commit.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RECORD_FLAG, appendRecord, captureStdout, currentCommit } from './lib/record';

const here = fileURLToPath(new URL('.', import.meta.url));
const available = readdirSync(here)
  .filter((file) => file.endsWith('.ts') && file !== 'run.ts' && !file.includes('.test.') && !file.startsWith('_'))
  .map((file) => file.replace(/\.ts$/, ''))
  .sort();

const argv = process.argv.slice(2);
const record = argv.includes(RECORD_FLAG);
const [name, ...args] = argv.filter((arg) => arg !== RECORD_FLAG);
const selected = name ? [name] : available;
for (const bench of selected) {
  if (!available.includes(bench)) {
    console.error(`Unknown benchmark "${bench}". Available: ${available.join(', ')}`);
    process.exit(2);
  }
}
for (const bench of selected) {
  console.log(`\n=== bench: ${bench} ===`);
  const module = (await import(`./${bench}.ts`)) as { default: (args: string[]) => Promise<void> };
  const capture = record ? captureStdout() : null;
  const at = new Date();
  await module.default(args);
  if (capture) {
    const results = join(here, 'results.md');
    appendRecord(results, { name: bench, args, at, commit: currentCommit(here), output: capture.stop() });
    console.log(`(recorded in ${results})`);
  }
}
process.exit(0);
