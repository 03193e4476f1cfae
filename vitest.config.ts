import { defineConfig } from 'vitest/config';

// Two projects, one house rule: a test beside the code (`<part>/src/…/x.test.ts`, `lib/…`)
// needs no server and runs in the `unit` project, without the global setup (`npm run
// test:unit`, seconds). A test under a `test/` folder (`core/test/`, `edge/test/`,
// `queue/test/`, `loadtest/test/`, the root `test/`) may talk to the real PostgreSQL and
// Redis: it runs in the `integration` project, where one run = one fresh database and one
// Redis key namespace, created in the global setup and handed to test files through
// `inject()`; nothing touches shared state. `npm test` runs both, then the workerd suite.
const parts = '{core,edge,queue,lib,payment-sandbox,loadtest,scripts,bench}';

export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          // The fault suite's own checks beside it (chaos/test/ runs in its own config).
          include: [`${parts}/**/*.test.ts`, 'chaos/*.test.ts'],
          exclude: ['**/node_modules/**', '**/test/**'],
          // One module graph per worker, not per file: importing the same modules afresh for
          // each of ~70 files was most of the tier's time. Safe while unit tests keep no state
          // across files (fake timers restored, no stubbed globals; a vi.mock file loads its
          // subject afresh with vi.resetModules). Check with `--sequence.shuffle`.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: [`${parts}/test/**/*.test.ts`, 'test/**/*.test.ts'],
          exclude: ['**/node_modules/**', 'edge/test/workers/**'],
          globalSetup: ['test/global-setup.ts'],
          // expect.poll waits for something to happen (a page shows a list, a ticker admits),
          // never for speed: on a loaded 2-core machine a page can take more than the default
          // second to render. A poll that names its own timeout keeps it.
          expect: { poll: { timeout: 10_000 } },
        },
      },
    ],
  },
});
