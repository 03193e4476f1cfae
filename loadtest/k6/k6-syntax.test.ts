/**
 * Every file k6 loads parses as ES2017. k6 releases before v0.53 reject object spread (and
 * anything newer: `?.`, `??`, numeric separators, optional catch bindings), so a script that
 * uses them does not even start there; the shims run the scripts in Node, which accepts all
 * of it, so only this test keeps the scripts loadable on old k6. Runtime APIs newer than
 * ES2017 are kept out by the type check (`lib: ["ES2017"]` in loadtest/tsconfig.json).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'acorn';
import { describe, expect, it } from 'vitest';

const loadtest = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The k6 modules of v0.47 the scripts may import (nothing experimental). */
const K6_MODULES = new Set(['k6', 'k6/http', 'k6/metrics', 'k6/execution', 'k6/data', 'k6/crypto', 'k6/encoding']);

const parseEs2017 = (source: string, file = 'snippet.js') =>
  parse(source, { ecmaVersion: 2017, sourceType: 'module', sourceFile: file });

/** The entry scripts and every file they import, as k6 would resolve them. */
function filesK6Loads(): { files: string[]; k6Imports: Set<string> } {
  const entries = [
    ...readdirSync(loadtest)
      .filter((name) => name.endsWith('.js'))
      .map((name) => join(loadtest, name)),
    ...readdirSync(join(loadtest, 'k6'))
      .filter((name) => name.endsWith('.js'))
      .map((name) => join(loadtest, 'k6', name)),
  ];
  const seen = new Set<string>();
  const k6Imports = new Set<string>();
  const queue = [...entries];
  while (queue.length) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const program = parseEs2017(readFileSync(file, 'utf8'), file) as unknown as {
      body: { type: string; source?: { value: string } | null }[];
    };
    for (const node of program.body) {
      const from = node.source?.value;
      if (!from) continue;
      if (from.startsWith('.')) queue.push(resolve(dirname(file), from));
      else k6Imports.add(from);
    }
  }
  return { files: [...seen].map((file) => relative(loadtest, file)).sort(), k6Imports };
}

describe('k6 scripts: syntax level', () => {
  it('the checker refuses what k6 before v0.53 refuses', () => {
    expect(() => parseEs2017('const a = { ...b };')).toThrow();
    expect(() => parseEs2017('const a = b?.c;')).toThrow();
    expect(() => parseEs2017('const a = b ?? 1;')).toThrow();
    expect(() => parseEs2017('const a = 50_000;')).toThrow();
    expect(() => parseEs2017('try { f(); } catch { g(); }')).toThrow();
    expect(() =>
      parseEs2017('const a = Object.assign({}, b, { c: [...d] }); async function f() { await g(); }'),
    ).not.toThrow();
  });

  it('every script, its k6 helpers and the shared journey parse as ES2017 and import only stable k6 modules', () => {
    const { files, k6Imports } = filesK6Loads(); // throws, naming the file and line, on newer syntax
    expect(files).toEqual(
      expect.arrayContaining([
        'flash-sale.js',
        'poll-storm.js',
        'hold-race.js',
        'opening.js',
        'lib/journey.js',
        'lib/seat-choice.js',
      ]),
    );
    expect([...k6Imports].filter((name) => !K6_MODULES.has(name))).toEqual([]);
  });

  it('the type check of the k6 scripts knows only the ES2017 library', () => {
    const config = JSON.parse(readFileSync(join(loadtest, 'tsconfig.json'), 'utf8')) as {
      compilerOptions: { lib: string[] };
    };
    expect(config.compilerOptions.lib).toEqual(['ES2017']);
  });
});
