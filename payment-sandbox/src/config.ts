import { z } from 'zod';
import { describeIssues, logLevelSetting, type LogLevel } from '../../lib/env';
import { checkSecretLength, MIN_WEBHOOK_SECRET_BYTES } from '../../lib/secrets-policy';

/** Development-only webhook secret, documented in the README; never use it outside a laptop. */
export const DEV_WEBHOOK_SECRET = 'whsec_dev_only';
export const DEV_API_KEY = 'sk_test_sandbox';
export const DEFAULT_PORT = 8082;

export type WebhookDeliveryConfig = {
  /** First retry waits about this long; each further retry doubles it (with jitter). */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Attempts per delivered copy, including the first; then the copy is given up. */
  maxAttempts: number;
  /** Per attempt: a merchant that does not answer in time counts as a failure. */
  timeoutMs: number;
  /** Deliveries in flight at once. */
  concurrency: number;
  /** Deliveries waiting or retrying; beyond it new ones are refused (counted, logged). */
  maxPendingDeliveries: number;
  userAgent: string;
};

export type SandboxConfig = {
  /** Base of `checkoutUrl` (what the buyer's browser opens). */
  publicUrl: string;
  /** Where webhooks are POSTed. */
  webhookUrl: string;
  /** Each event is signed once per secret (several during a rotation). */
  webhookSecrets: string[];
  apiKey: string;
  /** Oldest sessions are evicted past this many, so a load test cannot exhaust memory. */
  maxPayments: number;
  /** Delivery records kept for `GET /v1/events`. */
  maxEvents: number;
  /** Longest session a merchant may ask for. */
  maxSessionTtlMs: number;
  /** How often pending sessions past their expiry are expired (0: only lazily, on access). */
  expirySweepIntervalMs: number;
  maxBodyBytes: number;
  webhook: WebhookDeliveryConfig;
};

export type SandboxConfigInput = Partial<Omit<SandboxConfig, 'webhook'>> & {
  webhook?: Partial<WebhookDeliveryConfig>;
};

export const DEFAULT_WEBHOOK_CONFIG: WebhookDeliveryConfig = {
  baseDelayMs: 500,
  maxDelayMs: 60_000,
  maxAttempts: 12,
  timeoutMs: 10_000,
  concurrency: 32,
  maxPendingDeliveries: 50_000,
  userAgent: 'PaymentSandbox/1.0 (+webhooks; test mode)',
};

const DEFAULT_PUBLIC_URL = `http://127.0.0.1:${DEFAULT_PORT}`;

/** Fills in defaults; what is given wins. Trailing slashes are trimmed from URLs. */
export function resolveConfig(input: SandboxConfigInput = {}): SandboxConfig {
  const secrets = (input.webhookSecrets ?? [DEV_WEBHOOK_SECRET]).filter((s) => s.length > 0);
  if (secrets.length === 0) throw new Error('payment sandbox: at least one webhook secret is required');
  return {
    publicUrl: trimSlash(input.publicUrl ?? DEFAULT_PUBLIC_URL),
    webhookUrl: input.webhookUrl ?? 'http://127.0.0.1:8081/payments/callback',
    webhookSecrets: secrets,
    apiKey: input.apiKey ?? DEV_API_KEY,
    maxPayments: input.maxPayments ?? 20_000,
    maxEvents: input.maxEvents ?? 20_000,
    maxSessionTtlMs: input.maxSessionTtlMs ?? 24 * 60 * 60 * 1000,
    expirySweepIntervalMs: input.expirySweepIntervalMs ?? 1000,
    maxBodyBytes: input.maxBodyBytes ?? 16 * 1024,
    webhook: { ...DEFAULT_WEBHOOK_CONFIG, ...(input.webhook ?? {}) },
  };
}

const positiveInt = z.coerce.number().int().positive();
const env = z.object({
  PAYMENT_PORT: z.coerce.number().int().min(0).max(65_535).default(DEFAULT_PORT),
  PAYMENT_HOST: z.string().optional(),
  HOST: z.string().optional(),
  NODE_ENV: z.string().default('development'),
  LOG_LEVEL: logLevelSetting,
  PAYMENT_PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  WEBHOOK_URL: z.url({ protocol: /^https?$/ }).optional(),
  CORE_URL: z.url({ protocol: /^https?$/ }).optional(),
  PAYMENT_WEBHOOK_SECRET: z.string().optional(),
  PAYMENT_API_KEY: z.string().min(1).optional(),
  PAYMENT_MAX_SESSIONS: positiveInt.optional(),
  PAYMENT_WEBHOOK_BASE_DELAY_MS: positiveInt.optional(),
  PAYMENT_WEBHOOK_MAX_ATTEMPTS: positiveInt.optional(),
});

/**
 * Reads the sandbox's settings from a plain env record. `WEBHOOK_URL` wins over
 * `${CORE_URL}/payments/callback`; `PAYMENT_WEBHOOK_SECRET` is comma-separated (rotation:
 * every secret signs, the first one listed is the newest by convention).
 */
export function configFromEnv(record: Record<string, string | undefined>): {
  port: number;
  hostname: string;
  production: boolean;
  logLevel: LogLevel;
  config: SandboxConfig;
} {
  const parsed = env.safeParse(record);
  if (!parsed.success) {
    throw new Error(`payment sandbox: bad environment: ${describeIssues(parsed.error)}`);
  }
  const e = parsed.data;
  const port = e.PAYMENT_PORT;
  const secrets = e.PAYMENT_WEBHOOK_SECRET?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const production = e.NODE_ENV === 'production';
  // A short key signs forgeable webhooks; the core refuses the same (lib/secrets-policy.ts).
  if (secrets)
    checkSecretLength({
      service: 'payment sandbox',
      name: 'PAYMENT_WEBHOOK_SECRET',
      secrets,
      minBytes: MIN_WEBHOOK_SECRET_BYTES,
      production,
    });
  const coreUrl = e.CORE_URL ? trimSlash(e.CORE_URL) : undefined;
  const webhook: Partial<WebhookDeliveryConfig> = {};
  if (e.PAYMENT_WEBHOOK_BASE_DELAY_MS) webhook.baseDelayMs = e.PAYMENT_WEBHOOK_BASE_DELAY_MS;
  if (e.PAYMENT_WEBHOOK_MAX_ATTEMPTS) webhook.maxAttempts = e.PAYMENT_WEBHOOK_MAX_ATTEMPTS;
  const config = resolveConfig({
    publicUrl: e.PAYMENT_PUBLIC_URL ?? `http://127.0.0.1:${port}`,
    webhookUrl: e.WEBHOOK_URL ?? (coreUrl ? `${coreUrl}/payments/callback` : undefined),
    webhookSecrets: secrets && secrets.length > 0 ? secrets : undefined,
    apiKey: e.PAYMENT_API_KEY,
    maxPayments: e.PAYMENT_MAX_SESSIONS,
    webhook,
  });
  return { port, hostname: e.PAYMENT_HOST ?? e.HOST ?? '127.0.0.1', production, logLevel: e.LOG_LEVEL, config };
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
