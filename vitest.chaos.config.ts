import { defineConfig } from 'vitest/config';

// The fault suite's short version (chaos/test/), run by `npm test` after the other suites and
// alone: it starts a PostgreSQL cluster, a redis-server and four service processes, and kills
// and restarts them. Beside other heavy test files on a 2-core machine it would slow them past
// their timeouts and be slowed itself past its recovery goal; on its own it takes 2-3 minutes
// (twelve runs of up to 14 s of buying each, then settling): the timeout leaves room for a
// loaded machine, which slows the runs without failing them.
export default defineConfig({
  test: {
    include: ['chaos/test/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 600_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
