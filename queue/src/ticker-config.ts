/**
 * The ticker process's settings (`npm run queue`), read like every service's (lib/env.ts):
 * REDIS_URL, REDIS_KEY_PREFIX (the edge's and the core's namespace: a ticker on another one
 * would drive rooms nobody polls), QUEUE_TICK_MS, REDIS_CLUSTER=1 for a cluster seed, and for
 * restoring rooms from the core's sale control CORE_URL, ADMIN_TOKEN, CORE_SERVICE_TOKEN and
 * ROOM_SYNC_MS; with those, ADMISSION_GOVERN_MS paces the closed loop on the core's health. QUEUE_KEY_PREFIX, the prefix's old name here, is still read when
 * REDIS_KEY_PREFIX is absent, with a warning.
 */
import { z } from 'zod';
import { flagSetting, logLevelSetting, optionalTextSetting, parseEnv } from '../../lib/env';

const tickerEnvSchema = z.object({
  REDIS_URL: z.string().default('redis://127.0.0.1:6379'),
  REDIS_KEY_PREFIX: optionalTextSetting,
  QUEUE_KEY_PREFIX: optionalTextSetting,
  REDIS_CLUSTER: flagSetting(false),
  QUEUE_TICK_MS: z.coerce.number().int().min(10, 'QUEUE_TICK_MS must be at least 10').default(200),
  CORE_URL: optionalTextSetting,
  ADMIN_TOKEN: optionalTextSetting,
  CORE_SERVICE_TOKEN: optionalTextSetting,
  ROOM_SYNC_MS: z.coerce.number().int().min(200).default(2_000),
  ADMISSION_GOVERN_MS: z.coerce
    .number()
    .int()
    .refine((ms) => ms === 0 || ms >= 100, 'ADMISSION_GOVERN_MS must be 0 (off) or at least 100')
    .default(1_000),
  LOG_LEVEL: logLevelSetting,
});

export type TickerConfig = ReturnType<typeof parseTickerConfig>;

export function parseTickerConfig(env: Record<string, string | undefined>) {
  const value = parseEnv('queue ticker', tickerEnvSchema, env);
  const warnings: string[] = [];
  if (value.REDIS_KEY_PREFIX === undefined && value.QUEUE_KEY_PREFIX !== undefined) {
    warnings.push(
      'QUEUE_KEY_PREFIX is the old name of REDIS_KEY_PREFIX (the one the edge and the core read): rename it',
    );
  }
  return {
    redisUrl: value.REDIS_URL,
    keyPrefix: value.REDIS_KEY_PREFIX ?? value.QUEUE_KEY_PREFIX ?? '',
    cluster: value.REDIS_CLUSTER,
    intervalMs: value.QUEUE_TICK_MS,
    /** Restoring rooms from the core needs both its address and the operator token. */
    sync:
      value.CORE_URL && value.ADMIN_TOKEN
        ? {
            coreUrl: value.CORE_URL,
            adminToken: value.ADMIN_TOKEN,
            serviceToken: value.CORE_SERVICE_TOKEN ?? null,
            everyMs: value.ROOM_SYNC_MS,
          }
        : null,
    /** The closed loop on the core's health (admission-governor.ts): every this many ms, 0 = off; needs `sync`. */
    governEveryMs: value.ADMISSION_GOVERN_MS,
    logLevel: value.LOG_LEVEL,
    warnings,
  };
}
