/**
 * `npm run bench -- <name> [args]` runs bench/<name>.ts, whose default export is
 * `(args: string[]) => Promise<void>`. Every benchmark prints its figure next to a physical
 * limit measured in the same run (pgbench, redis-benchmark, bare node:http) and the ratio.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const available = readdirSync(here)
  .filter((file) => file.endsWith('.ts') && file !== 'run.ts' && !file.includes('.test.') && !file.startsWith('_'))
  .map((file) => file.replace(/\.ts$/, ''))
  .sort();

const [name, ...args] = process.argv.slice(2);
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
  await module.default(args);
}
process.exit(0);
