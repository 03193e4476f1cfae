import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  findCycles,
  importGraph,
  importsLeaving,
  repositoryCycles,
  repositoryGraph,
  sourceFiles,
} from './import-cycles';

const root = path.resolve(import.meta.dirname, '..');

describe('import cycles', () => {
  it('no module imports itself through others, type-only imports included', () => {
    expect(sourceFiles(root).length).toBeGreaterThan(300);
    expect(repositoryCycles(root)).toEqual([]);
  });

  it('would catch a type-only cycle like the one the journey reports had', () => {
    const files = new Map([
      ['loadtest/journey/run-journey.ts', "import { renderTextReport } from './report';\n"],
      ['loadtest/journey/report.ts', "import type { ReportContext } from './run-journey';\n"],
      ['loadtest/journey/setup.ts', "import { z } from 'zod';\n"],
    ]);
    expect(findCycles(importGraph(files))).toEqual([['loadtest/journey/report.ts', 'loadtest/journey/run-journey.ts']]);
  });

  it('follows re-exports, multi-line imports and .js specifiers across folders', () => {
    const files = new Map([
      ['core/src/a.ts', "import {\n  shared,\n} from '../../lib/b';\n"],
      ['lib/b.ts', "export * from './c.js';\n"],
      ['lib/c.ts', "import type { A } from '../core/src/a';\n"],
    ]);
    expect(findCycles(importGraph(files))).toEqual([['core/src/a.ts', 'lib/b.ts', 'lib/c.ts']]);
  });

  it('lib, the bottom layer, imports nothing above it (its tests aside), and a violation shows', () => {
    expect(importsLeaving(repositoryGraph(root), 'lib')).toEqual([]);
    const files = new Map([
      ['lib/api-schemas.ts', "import { SEAT_CODE } from '../core/src/seats/hold-service';\n"],
      ['lib/api-schemas.test.ts', "import { x } from '../core/src/seats/hold-service';\n"],
      ['core/src/seats/hold-service.ts', ''],
    ]);
    expect(importsLeaving(importGraph(files), 'lib')).toEqual(['lib/api-schemas.ts → core/src/seats/hold-service.ts']);
  });
});
