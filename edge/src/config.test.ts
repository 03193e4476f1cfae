import { describe, expect, it } from 'vitest';
import { parseCoreConfig } from '../../core/src/config';
import { parseTickerConfig } from '../../queue/src/ticker-config';
import { DEV_FAIRNESS_RECEIPT_JWK } from '../../lib/fairness-receipt';
import { parseEdgeConfig } from './config';

// Bound to loopback, so the public development admin token is allowed (lib/secrets-policy.ts).
const base = { EDGE_HOST: '127.0.0.1' };

describe('edge configuration', () => {
  it('FAIRNESS_RECEIPT_KEY: the public development key is said loudly, refused in production; a bad key stops the start', () => {
    const production = {
      NODE_ENV: 'production',
      EDGE_HOST: '0.0.0.0',
      ADMIN_TOKEN: 'a-real-admin-token-0123456789',
      TOKEN_SIGNING_KEY: '{}',
      CUSTOMER_JWKS_URL: 'https://idp.example/jwks',
    };
    const own = JSON.stringify({
      ...DEV_FAIRNESS_RECEIPT_JWK,
      d: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      kid: 'own',
    });
    expect(parseEdgeConfig(base).warnings.some((w) => w.includes('FAIRNESS_RECEIPT_KEY'))).toBe(true);
    const reachable = { EDGE_HOST: '0.0.0.0', ADMIN_TOKEN: 'a-real-admin-token-0123456789' };
    expect(parseEdgeConfig(reachable).fairnessReceiptJwk).toEqual(DEV_FAIRNESS_RECEIPT_JWK);
    expect(() => parseEdgeConfig(production)).toThrow(/FAIRNESS_RECEIPT_KEY/);
    expect(parseEdgeConfig({ ...production, FAIRNESS_RECEIPT_KEY: own }).fairnessReceiptJwk.kid).toBe('own');
    expect(() => parseEdgeConfig({ ...base, FAIRNESS_RECEIPT_KEY: '{"kty":"RSA"}' })).toThrow(/P-256/);
    expect(() => parseEdgeConfig({ ...base, FAIRNESS_RECEIPT_KEY: 'not json' })).toThrow(/JSON/);
  });

  it('shares its Redis namespace with the ticker and the core: one variable, REDIS_KEY_PREFIX', () => {
    const env = { ...base, REDIS_KEY_PREFIX: 'shop-a:' };
    const edge = parseEdgeConfig(env);
    expect(edge.keyPrefix).toBe('shop-a:');
    expect(parseTickerConfig(env).keyPrefix).toBe(edge.keyPrefix);
    expect(parseCoreConfig(env).redisKeyPrefix).toBe(edge.keyPrefix);
  });

  it('reads flags as 1/0 (true/false too): TRUST_PROXY, DEMO_LOGIN', () => {
    expect(parseEdgeConfig({ ...base, TRUST_PROXY: '1' }).trustProxyHops).toBe(1);
    expect(parseEdgeConfig({ ...base, TRUST_PROXY: 'true' }).trustProxyHops).toBe(1);
    expect(parseEdgeConfig({ ...base, TRUST_PROXY: '0' }).trustProxyHops).toBe(0);
    expect(parseEdgeConfig({ ...base, DEMO_LOGIN: '0' }).demoLogin).toBe(false);
    expect(parseEdgeConfig(base).demoLogin).toBe(true);
    expect(() => parseEdgeConfig({ ...base, TRUST_PROXY: 'yes' })).toThrow(/^Invalid edge configuration: TRUST_PROXY/);
  });

  it('trusts X-Forwarded-For only from TRUST_PROXY_CIDRS (private ranges when only hops are set), and checks the networks', () => {
    expect(parseEdgeConfig(base).trustProxyCidrs).toEqual([]);
    const named = parseEdgeConfig({ ...base, TRUST_PROXY_CIDRS: '10.1.0.0/16, 2001:db8::/32', TRUST_PROXY_HOPS: '2' });
    expect(named.trustProxyCidrs).toEqual(['10.1.0.0/16', '2001:db8::/32']);
    expect(named.trustProxyHops).toBe(2);
    const hopsOnly = parseEdgeConfig({ ...base, TRUST_PROXY: '1' });
    expect(hopsOnly.trustProxyCidrs).toContain('127.0.0.0/8');
    expect(hopsOnly.warnings.join('\n')).toMatch(/TRUST_PROXY_CIDRS/);
    expect(() => parseEdgeConfig({ ...base, TRUST_PROXY_CIDRS: '10.0.0.0/33' })).toThrow(/TRUST_PROXY_CIDRS/);
    expect(parseEdgeConfig(base).ipv6LimitPrefix).toBe(64);
    expect(parseEdgeConfig({ ...base, IPV6_LIMIT_PREFIX: '56' }).ipv6LimitPrefix).toBe(56);
    expect(() => parseEdgeConfig({ ...base, IPV6_LIMIT_PREFIX: '8' })).toThrow(/IPV6_LIMIT_PREFIX/);
  });

  it('EDGE_PROCESSES: several only with Redis to share; absent, one per core in production (main.ts), one otherwise', async () => {
    const { edgeProcessCount } = await import('./node-cluster');
    const { availableParallelism } = await import('node:os');
    expect(parseEdgeConfig({ ...base, EDGE_PROCESSES: '3', REDIS_URL: 'redis://r' }).processes).toBe(3);
    expect(() => parseEdgeConfig({ ...base, EDGE_PROCESSES: '3' })).toThrow(/EDGE_PROCESSES above 1 needs REDIS_URL/);
    expect(() => parseEdgeConfig({ ...base, EDGE_PROCESSES: '0', REDIS_URL: 'redis://r' })).toThrow(
      /^Invalid edge configuration: EDGE_PROCESSES/,
    );
    expect(edgeProcessCount(parseEdgeConfig({ ...base, REDIS_URL: 'redis://r' }))).toBe(1);
    expect(edgeProcessCount({ processes: null, production: true, redisUrl: 'redis://r' })).toBe(availableParallelism());
    expect(edgeProcessCount({ processes: null, production: true, redisUrl: null })).toBe(1);
  });
});
