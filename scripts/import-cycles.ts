/**
 * Import cycles among the repository's modules, type-only imports included: a cycle makes the
 * layering (lib → queue, payment-sandbox → core → edge → tools) impossible to read off the
 * imports, and a value cycle can leave a binding undefined at load time.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const PARTS = ['lib', 'queue', 'payment-sandbox', 'core', 'edge', 'loadtest', 'bench', 'chaos', 'scripts', 'test'];
const SKIP = new Set(['node_modules', 'reports']);

export function sourceFiles(root: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(path.join(root, dir)).flatMap((name) => {
      const relative = path.join(dir, name);
      if (SKIP.has(name)) return [];
      if (statSync(path.join(root, relative)).isDirectory()) return walk(relative);
      return /\.(ts|js)$/.test(name) && !name.endsWith('.gen.ts') && !name.endsWith('.d.ts') ? [relative] : [];
    });
  return PARTS.flatMap((part) => walk(part));
}

const IMPORT = /^\s*(?:import|export)\s[^;]*?from\s+['"](\.[^'"]+)['"]/gms;

/** Each file's relative imports (and re-exports), resolved to files of the set. */
export function importGraph(files: Map<string, string>): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const [file, text] of files) {
    const deps: string[] = [];
    for (const m of text.matchAll(IMPORT)) {
      const target = path.join(path.dirname(file), m[1]!);
      const candidates = [target, `${target}.ts`, target.replace(/\.js$/, '.ts'), path.join(target, 'index.ts')];
      const found = candidates.find((candidate) => files.has(candidate));
      if (found) deps.push(found);
    }
    graph.set(file, deps);
  }
  return graph;
}

/** Strongly connected components of more than one file (Tarjan), each sorted. */
export function findCycles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

export function repositoryCycles(root: string): string[][] {
  return findCycles(repositoryGraph(root));
}

/** Imports from non-test files under `folder` that leave it: lib is the bottom layer. */
export function importsLeaving(graph: Map<string, string[]>, folder: string): string[] {
  return [...graph].flatMap(([file, deps]) =>
    file.startsWith(`${folder}/`) && !file.includes('.test.')
      ? deps.filter((dep) => !dep.startsWith(`${folder}/`)).map((dep) => `${file} → ${dep}`)
      : [],
  );
}

export function repositoryGraph(root: string): Map<string, string[]> {
  return importGraph(new Map(sourceFiles(root).map((file) => [file, readFileSync(path.join(root, file), 'utf8')])));
}
