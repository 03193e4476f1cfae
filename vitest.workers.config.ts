import { cloudflareTest } from '@cloudflare/vitest-pool-workers';
import { defineConfig } from 'vitest/config';

// The edge's Workers build, tested inside workerd (miniflare) against the real Redis through
// the Upstash REST shim and a stub core, both started by the global setup.
export default defineConfig({
  plugins: [
    cloudflareTest(({ inject }) => ({
      main: './edge/src/worker.ts',
      wrangler: { configPath: './wrangler.toml' },
      miniflare: {
        bindings: {
          // Demo login is refused in production; the Worker defaults to production otherwise.
          NODE_ENV: 'test',
          DEMO_LOGIN: '1',
          DEMO_LOGIN_PER_MINUTE: '1000',
          CORE_URL: inject('coreUrl'),
          UPSTASH_REDIS_REST_URL: inject('upstashUrl'),
          UPSTASH_REDIS_REST_TOKEN: inject('upstashToken'),
          TOKEN_SIGNING_KEY: inject('signingKey'),
          ADMIN_TOKEN: 'workers-test-admin-token-0123',
          REDIS_KEY_PREFIX: inject('workerKeyPrefix'),
        },
      },
    })),
  ],
  test: {
    include: ['edge/test/workers/**/*.test.ts'],
    globalSetup: ['edge/test/workers/workers-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
