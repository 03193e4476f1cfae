/**
 * `npm run bench -- json-guard [--seconds=N]`
 *
 * What the JSON guard (lib/json-guard.ts: depth, value count, NUL and lone surrogates, one
 * iterative walk) adds to reading a body, next to its physical limit measured in the same run:
 * JSON.parse of the same text, which every body pays anyway. Three bodies: a buyer's hold
 * (the hot path), a 300-seat hall layout (the largest an operator sends), and the 10 KB body
 * nested 5,000 deep that the guard exists to refuse (refused at depth 33, without walking on).
 */
import { performance } from 'node:perf_hooks';
import { findJsonDefect } from '../lib/json-guard';

function option(args: string[], name: string, fallback: number): number {
  const found = args.find((a) => a.startsWith(`--${name}=`));
  return found ? Number(found.split('=')[1]) : fallback;
}

/** Runs `op` back to back for `ms`; microseconds per call. */
function microsPerCall(ms: number, op: () => unknown): number {
  let calls = 0;
  const started = performance.now();
  while (performance.now() - started < ms) {
    for (let k = 0; k < 100; k++) op();
    calls += 100;
  }
  return ((performance.now() - started) * 1000) / calls;
}

const hall = {
  name: 'Salle 1',
  seats: Array.from({ length: 300 }, (_, i) => ({
    code: `${String.fromCharCode(65 + Math.floor(i / 20))}${(i % 20) + 1}`,
    rowLabel: String.fromCharCode(65 + Math.floor(i / 20)),
    row: Math.floor(i / 20) + 1,
    column: (i % 20) + 1,
    type: 'standard',
  })),
};
const bodies: Array<[string, string]> = [
  ['hold {"seats":[…2]}', JSON.stringify({ seats: ['F5', 'F6'] })],
  ['hall, 300 seats', JSON.stringify(hall)],
  ['5,000 deep (refused)', `${'['.repeat(5_000)}${']'.repeat(5_000)}`],
];

export default async function bench(args: string[]): Promise<void> {
  const ms = option(args, 'seconds', 2) * 1000;
  console.log('body                      bytes   JSON.parse (limit)   parse + guard   guard / parse');
  for (const [name, text] of bodies) {
    const parse = microsPerCall(ms / 2, () => JSON.parse(text));
    const guarded = microsPerCall(ms / 2, () => findJsonDefect(JSON.parse(text)));
    console.log(
      `${name.padEnd(24)} ${String(text.length).padStart(7)}   ${parse.toFixed(2).padStart(10)} µs      ${guarded.toFixed(2).padStart(8)} µs   ${(guarded / parse).toFixed(2).padStart(8)}`,
    );
  }
}
