import { z } from 'zod';
import { DEV_ADMIN_TOKEN, flagSetting, keyPrefixSetting, logLevelSetting, parseEnv } from '../../lib/env';
import { checkDefaultSecret, checkSecretLength, MIN_WEBHOOK_SECRET_BYTES } from '../../lib/secrets-policy';

/** Plain env record in, typed config out; nothing else in the core reads process.env. */
const coreEnvSchema = z.object({
  NODE_ENV: z.string().default('development'),
  CORE_PORT: z.coerce.number().int().min(0).max(65535).default(8081),
  // Only the edge faces buyers: the core listens on loopback unless told otherwise.
  CORE_HOST: z.string().optional(),
  HOST: z.string().optional(),
  CORE_SERVICE_TOKEN: z.string().min(16, 'CORE_SERVICE_TOKEN must be at least 16 characters').optional(),
  REDIS_KEY_PREFIX: keyPrefixSetting,
  DATABASE_URL: z.string().url().optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  ADMIN_TOKEN: z.string().min(16, 'ADMIN_TOKEN must be at least 16 characters').optional(),
  TOKEN_PUBLIC_JWKS: z.string().optional(),
  TOKEN_SIGNING_KEY: z.string().optional(),
  REDIS_URL: z.string().optional(),
  PAYMENT_URL: z.string().url().default('http://127.0.0.1:8082'),
  PAYMENT_API_KEY: z.string().min(1).default('sk_test_sandbox'),
  PAYMENT_WEBHOOK_SECRET: z.string().min(1).optional(),
  PUBLIC_URL: z.string().url().default('http://127.0.0.1:8080'),
  JOBS_ENABLED: flagSetting(true),
  // The Redis seat gate ahead of hold_seats (README, "The seat gate"); in effect only with REDIS_URL.
  SEAT_GATE: flagSetting(true),
  SEAT_GATE_CHECK_MS: z.coerce.number().int().min(100).default(5_000),
  RECONCILE_AFTER_MS: z.coerce.number().int().min(100).default(60_000),
  LOG_LEVEL: logLevelSetting,
});

export { DEV_ADMIN_TOKEN };
/** The payment sandbox's development secret (payment-sandbox/src/config.ts). */
export const DEV_WEBHOOK_SECRET = 'whsec_dev_only';

export type CoreConfig = ReturnType<typeof parseCoreConfig>;

export function parseCoreConfig(env: Record<string, string | undefined>) {
  const value = parseEnv('core', coreEnvSchema, env);
  const production = value.NODE_ENV === 'production';
  if (production && !value.ADMIN_TOKEN) throw new Error('ADMIN_TOKEN is required in production');
  if (production && !value.CORE_SERVICE_TOKEN)
    throw new Error('CORE_SERVICE_TOKEN (shared with the edge) is required in production');
  if (production && !value.PAYMENT_WEBHOOK_SECRET) throw new Error('PAYMENT_WEBHOOK_SECRET is required in production');
  if (production && !value.TOKEN_PUBLIC_JWKS && !value.TOKEN_SIGNING_KEY) {
    throw new Error("TOKEN_PUBLIC_JWKS (the edge's public keys) is required in production");
  }
  const host = value.CORE_HOST ?? value.HOST ?? '127.0.0.1';
  const webhookSecrets = (value.PAYMENT_WEBHOOK_SECRET ?? DEV_WEBHOOK_SECRET)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  checkSecretLength({
    service: 'core',
    name: 'PAYMENT_WEBHOOK_SECRET',
    secrets: webhookSecrets,
    minBytes: MIN_WEBHOOK_SECRET_BYTES,
    production,
  });
  // Public development defaults: refused off loopback and in production, said loudly otherwise.
  const warnings = [
    checkDefaultSecret({
      service: 'core',
      name: 'ADMIN_TOKEN',
      usingDefault: !value.ADMIN_TOKEN || value.ADMIN_TOKEN === DEV_ADMIN_TOKEN,
      host,
      production,
    }),
    checkDefaultSecret({
      service: 'core',
      name: 'PAYMENT_WEBHOOK_SECRET',
      usingDefault: webhookSecrets.includes(DEV_WEBHOOK_SECRET),
      host,
      production,
    }),
  ].filter((warning): warning is string => warning !== null);
  return {
    production,
    port: value.CORE_PORT,
    host,
    serviceToken: value.CORE_SERVICE_TOKEN ?? null,
    redisKeyPrefix: value.REDIS_KEY_PREFIX,
    databaseUrl: value.DATABASE_URL ?? null,
    databasePoolSize: value.DATABASE_POOL_SIZE,
    adminToken: value.ADMIN_TOKEN ?? DEV_ADMIN_TOKEN,
    tokenPublicJwks: value.TOKEN_PUBLIC_JWKS ?? null,
    tokenSigningKey: value.TOKEN_SIGNING_KEY ?? null,
    redisUrl: value.REDIS_URL ?? null,
    paymentUrl: value.PAYMENT_URL,
    paymentApiKey: value.PAYMENT_API_KEY,
    // Comma-separated during a rotation: any listed secret verifies.
    webhookSecrets,
    publicUrl: value.PUBLIC_URL,
    jobsEnabled: value.JOBS_ENABLED,
    seatGate: value.SEAT_GATE,
    seatGateCheckMs: value.SEAT_GATE_CHECK_MS,
    reconcileAfterMs: value.RECONCILE_AFTER_MS,
    logLevel: value.LOG_LEVEL,
    /** Logged loudly at start (node.ts). */
    warnings,
  };
}
