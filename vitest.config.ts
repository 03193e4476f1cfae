import { defineConfig } from 'vitest/config';

// One run = one fresh PostgreSQL database and one Redis key namespace, created in the
// global setup and handed to test files through `inject()`; nothing touches shared state.
export default defineConfig({
  test: {
    include: ['{core,edge,queue,lib,payment-sandbox,loadtest,scripts,test}/**/*.test.ts'],
    exclude: ['**/node_modules/**', 'edge/test/workers/**'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
    reporters: ['default'],
  },
});
