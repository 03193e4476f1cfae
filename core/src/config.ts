import { z } from 'zod';

/** Plain env record in, typed config out; nothing else in the core reads process.env. */
const coreEnvSchema = z.object({
  NODE_ENV: z.string().default('development'),
  CORE_PORT: z.coerce.number().int().min(0).max(65535).default(8081),
  CORE_HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().url().optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  ADMIN_TOKEN: z.string().min(16, 'ADMIN_TOKEN must be at least 16 characters').optional(),
  TOKEN_PUBLIC_JWKS: z.string().optional(),
  TOKEN_SIGNING_KEY: z.string().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export const DEV_ADMIN_TOKEN = 'dev-admin-token-change-me';

export type CoreConfig = ReturnType<typeof parseCoreConfig>;

export function parseCoreConfig(env: Record<string, string | undefined>) {
  const parsed = coreEnvSchema.safeParse(env);
  if (!parsed.success) {
    throw new Error(`Invalid core configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  const value = parsed.data;
  const production = value.NODE_ENV === 'production';
  if (production && !value.ADMIN_TOKEN) throw new Error('ADMIN_TOKEN is required in production');
  if (production && !value.TOKEN_PUBLIC_JWKS && !value.TOKEN_SIGNING_KEY) {
    throw new Error('TOKEN_PUBLIC_JWKS (the edge\'s public keys) is required in production');
  }
  return {
    production,
    port: value.CORE_PORT,
    host: value.CORE_HOST,
    databaseUrl: value.DATABASE_URL ?? null,
    databasePoolSize: value.DATABASE_POOL_SIZE,
    adminToken: value.ADMIN_TOKEN ?? DEV_ADMIN_TOKEN,
    tokenPublicJwks: value.TOKEN_PUBLIC_JWKS ?? null,
    tokenSigningKey: value.TOKEN_SIGNING_KEY ?? null,
    logLevel: value.LOG_LEVEL,
  };
}
