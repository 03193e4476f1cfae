/**
 * Runs in a plain Node child process (tsx), outside Vite: the Upstash REST shim in front of
 * the real Redis and the stub core on real ports. Prints one JSON line with their addresses
 * and the signing key, then serves until killed. (Vite's workerd resolve conditions break
 * ioredis when these are loaded inside the vitest global setup itself.)
 */
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { generateSigningJwk, loadTokenKeys } from '../../../lib/token-keys';
import { SHIM_TOKEN, startUpstashShim } from '../../../queue/test/upstash-rest-shim';
import { createStubCore } from '../stub-core';

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const jwk = await generateSigningJwk('workers-test-1');
const core = createStubCore(await loadTokenKeys({ signingJwk: jwk }));
const showtimes = [core.addShowtime(), core.addShowtime(), core.addShowtime()];
const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
  const s = serve({ fetch: core.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
});
const shim = await startUpstashShim(redisUrl);
process.stdout.write(
  `${JSON.stringify({
    upstashUrl: shim.url,
    upstashToken: SHIM_TOKEN,
    coreUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    signingKey: JSON.stringify(jwk),
    showtimes,
  })}\n`,
);
process.once('SIGTERM', async () => {
  await shim.close();
  server.close();
  process.exit(0);
});
