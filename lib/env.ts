/**
 * The configuration convention every service follows (README, "Configuration"): a plain env
 * record in (process.env on Node, the bindings on Workers), one zod schema per service, a
 * typed config out; nothing else reads the environment. What the services share is here, so
 * a setting has one name and one syntax wherever it is read:
 * - a flag is `1` or `0` (`true` and `false` are read as well, as some were once written);
 * - LOG_LEVEL is a pino level, `info` when absent;
 * - REDIS_KEY_PREFIX is the one key namespace of every process on a Redis (edge, core, ticker);
 * - ADMIN_TOKEN falls back to one public development token (refused off loopback and in
 *   production: secrets-policy.ts);
 * - a bad environment is one error that names every bad variable.
 */
import { z } from 'zod';

/** The public development admin token: written here, so never a secret (secrets-policy.ts). */
export const DEV_ADMIN_TOKEN = 'dev-admin-token-change-me';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** LOG_LEVEL: a pino level, `info` when absent. */
export const logLevelSetting = z.enum(LOG_LEVELS).default('info');

/** REDIS_KEY_PREFIX: put in front of every Redis key; empty when absent. */
export const keyPrefixSetting = z.string().default('');

const FLAG_WORDS = ['1', '0', 'true', 'false'] as const;
const isOn = (word: (typeof FLAG_WORDS)[number]) => word === '1' || word === 'true';

/** A flag (`1`/`0`, or `true`/`false`) that is `fallback` when absent. */
export function flagSetting(fallback: boolean) {
  return z
    .enum(FLAG_WORDS, { message: 'a flag is 1 or 0' })
    .optional()
    .transform((word) => (word === undefined ? fallback : isOn(word)));
}

/** A flag whose absence means something of its own (undefined): the service decides. */
export const optionalFlagSetting = z
  .enum(FLAG_WORDS, { message: 'a flag is 1 or 0' })
  .optional()
  .transform((word) => (word === undefined ? undefined : isOn(word)));

/** Text where empty or blank counts as absent (a variable set to '' in a compose file). */
export const optionalTextSetting = z
  .string()
  .optional()
  .transform((value) => (value && value.trim() !== '' ? value : undefined));

/** One line naming every bad variable and what is wrong with it. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
}

/** Parses `env` with a service's schema, or throws `Invalid <service> configuration: …`. */
export function parseEnv<T extends z.ZodType>(
  service: string,
  schema: T,
  env: Record<string, string | undefined>,
): z.output<T> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) throw new Error(`Invalid ${service} configuration: ${describeIssues(parsed.error)}`);
  return parsed.data;
}
