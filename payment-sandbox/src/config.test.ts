import { describe, expect, it } from 'vitest';
import { configFromEnv, DEV_API_KEY, DEV_WEBHOOK_SECRET, resolveConfig } from './config';

describe('configFromEnv', () => {
  it('has development defaults', () => {
    const { port, config } = configFromEnv({});
    expect(port).toBe(8082);
    expect(config).toMatchObject({
      publicUrl: 'http://127.0.0.1:8082',
      webhookUrl: 'http://127.0.0.1:8081/payments/callback',
      webhookSecrets: [DEV_WEBHOOK_SECRET],
      apiKey: DEV_API_KEY,
    });
  });

  it('reads the port, URLs, key and comma-separated secrets', () => {
    const { port, config } = configFromEnv({
      PAYMENT_PORT: '9999',
      PAYMENT_PUBLIC_URL: 'https://pay.example.test/',
      CORE_URL: 'http://core:8081/',
      PAYMENT_WEBHOOK_SECRET: 'whsec_new, whsec_old,',
      PAYMENT_API_KEY: 'sk_test_x',
      PAYMENT_MAX_SESSIONS: '500',
      PAYMENT_WEBHOOK_BASE_DELAY_MS: '50',
      PAYMENT_WEBHOOK_MAX_ATTEMPTS: '3',
    });
    expect(port).toBe(9999);
    expect(config).toMatchObject({
      publicUrl: 'https://pay.example.test',
      webhookUrl: 'http://core:8081/payments/callback',
      webhookSecrets: ['whsec_new', 'whsec_old'],
      apiKey: 'sk_test_x',
      maxPayments: 500,
      webhook: { baseDelayMs: 50, maxAttempts: 3 },
    });
  });

  it('prefers WEBHOOK_URL over CORE_URL', () => {
    const { config } = configFromEnv({ CORE_URL: 'http://core:8081', WEBHOOK_URL: 'http://hook.test/in' });
    expect(config.webhookUrl).toBe('http://hook.test/in');
  });

  it('refuses a bad environment with a clear message', () => {
    expect(() => configFromEnv({ PAYMENT_PORT: 'eighty' })).toThrow(/PAYMENT_PORT/);
    expect(() => configFromEnv({ WEBHOOK_URL: 'not a url' })).toThrow(/WEBHOOK_URL/);
  });

  it('refuses an empty secret list', () => {
    expect(() => resolveConfig({ webhookSecrets: [''] })).toThrow(/secret/);
  });
});
