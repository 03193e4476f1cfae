import { describe, expect, it } from 'vitest';
import { parseTickerConfig } from './ticker-config';

describe('ticker configuration', () => {
  it('reads the key namespace from REDIS_KEY_PREFIX, like the edge and the core', () => {
    expect(parseTickerConfig({ REDIS_KEY_PREFIX: 'shop-a:' }).keyPrefix).toBe('shop-a:');
  });

  it('still reads the old QUEUE_KEY_PREFIX when REDIS_KEY_PREFIX is absent, and says to rename it', () => {
    const config = parseTickerConfig({ QUEUE_KEY_PREFIX: 'old:' });
    expect(config.keyPrefix).toBe('old:');
    expect(config.warnings.join()).toMatch(/REDIS_KEY_PREFIX/);
    expect(parseTickerConfig({ REDIS_KEY_PREFIX: 'new:', QUEUE_KEY_PREFIX: 'old:' })).toMatchObject({
      keyPrefix: 'new:',
      warnings: [],
    });
  });

  it('defaults, flags as 1/0, room sync only with the core address and the operator token', () => {
    expect(parseTickerConfig({})).toMatchObject({
      redisUrl: 'redis://127.0.0.1:6379',
      keyPrefix: '',
      cluster: false,
      intervalMs: 200,
      sync: null,
      logLevel: 'info',
    });
    expect(parseTickerConfig({ REDIS_CLUSTER: '1' }).cluster).toBe(true);
    expect(parseTickerConfig({ CORE_URL: 'http://127.0.0.1:8081' }).sync).toBeNull();
    expect(parseTickerConfig({ CORE_URL: 'http://127.0.0.1:8081', ADMIN_TOKEN: 'x'.repeat(20) }).sync).toMatchObject({
      everyMs: 2_000,
      serviceToken: null,
    });
  });

  it('refuses a tick interval under 10 ms by name', () => {
    expect(() => parseTickerConfig({ QUEUE_TICK_MS: '5' })).toThrow(/QUEUE_TICK_MS/);
  });
});
