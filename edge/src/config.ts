/**
 * Plain env record in, typed config out. Node passes process.env, Workers passes its bindings;
 * nothing else in the edge reads the environment.
 */
import { z } from 'zod';
import {
  DEV_ADMIN_TOKEN,
  flagSetting,
  keyPrefixSetting,
  logLevelSetting,
  optionalFlagSetting,
  optionalTextSetting,
  parseEnv,
} from '../../lib/env';
import { createAddressSet, PRIVATE_NETWORKS } from '../../lib/ip-address';
import { checkDefaultSecret } from '../../lib/secrets-policy';
import { DEV_FAIRNESS_RECEIPT_JWK, parseReceiptJwk } from '../../lib/fairness-receipt';

export { DEV_ADMIN_TOKEN };

const optionalText = optionalTextSetting;

const edgeEnvSchema = z.object({
  NODE_ENV: z.string().default('development'),
  EDGE_PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  EDGE_HOST: z.string().default('0.0.0.0'),
  /**
   * Node: descriptors for the listening socket, each polled on its own (net/acceptors.ts). Node
   * accepts one connection per event-loop turn and descriptor, so a busy edge with one takes in
   * only a few new connections a second. Not in a node:cluster worker (the primary accepts).
   */
  EDGE_ACCEPTORS: z.coerce.number().int().min(1).max(64).default(8),
  CORE_URL: z.string().url().default('http://127.0.0.1:8081'),
  REDIS_URL: optionalText,
  REDIS_KEY_PREFIX: keyPrefixSetting,
  UPSTASH_REDIS_REST_URL: optionalText,
  UPSTASH_REDIS_REST_TOKEN: optionalText,
  ADMIN_TOKEN: optionalText.pipe(z.string().min(16, 'ADMIN_TOKEN must be at least 16 characters').optional()),
  TOKEN_SIGNING_KEY: optionalText,
  TOKEN_PUBLIC_JWKS: optionalText,
  /** Private EC P-256 JWK (JSON) that signs join receipts (lib/fairness-receipt.ts); default: the public development key. */
  FAIRNESS_RECEIPT_KEY: optionalText,
  /** Production identity provider: customer JWTs are verified against this JWKS. */
  CUSTOMER_JWKS_URL: optionalText,
  CUSTOMER_ISSUER: optionalText,
  CUSTOMER_AUDIENCE: optionalText,
  CUSTOMER_ALGORITHMS: z.string().default('RS256,ES256'),
  DEMO_LOGIN: optionalFlagSetting,
  TOKEN_CLOCK_TOLERANCE_MS: z.coerce.number().int().min(0).max(120_000).default(5_000),
  QUEUE_TOKEN_TTL_MS: z.coerce
    .number()
    .int()
    .min(60_000)
    .default(6 * 3_600_000),
  SNAPSHOT_TTL_MS: z.coerce.number().int().min(0).max(10_000).default(1_000),
  SEAT_MAP_TTL_MS: z.coerce.number().int().min(0).max(60_000).default(1_000),
  FLOOD_POINTS: z.coerce.number().int().min(1).default(20),
  FLOOD_WINDOW_MS: z.coerce.number().int().min(100).default(1_000),
  CORE_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  /**
   * Calls to the core one edge process keeps in flight at most (0 = no limit); one more waits
   * for a slot, first come first served, up to CORE_QUEUE_WAIT_MS.
   */
  CORE_CALLS_IN_FLIGHT: z.coerce.number().int().min(0).default(64),
  /**
   * How long a call may wait for a slot at the core (ms; 0 = refuse at once when all are
   * taken). A call whose wait, from the core's measured latency, would be longer is answered
   * 503 BUSY with Retry-After at once.
   */
  CORE_QUEUE_WAIT_MS: z.coerce.number().int().min(0).max(30_000).default(1_500),
  /** Calls to the core one customer may have running or waiting in one edge process (0 = no limit); one more is 429. */
  CORE_CALLS_PER_CUSTOMER: z.coerce.number().int().min(0).max(1_000).default(4),
  /**
   * How long the operator's room view waits for the core's part (sale state, version, audit)
   * before answering with what the core last said, marked stale (ms).
   */
  OPERATOR_VIEW_CORE_BUDGET_MS: z.coerce.number().int().min(10).max(60_000).default(150),
  /** Hold and booking reads and cancels one customer may make per minute, per edge process; more are 429. */
  CUSTOMER_READS_PER_MINUTE: z.coerce.number().int().min(1).default(120),
  /**
   * Node: sustained event-loop lag (ms) above which joins, purchases and other costly requests
   * are answered 503 BUSY with Retry-After, while /healthz and polls are still answered (0 = off).
   * Node accepts one new connection per event-loop turn: at 200 ms a process takes in about five
   * new connections a second.
   */
  SHED_LAG_MS: z.coerce.number().int().min(0).max(60_000).default(200),
  /** Sent to the core on every call (X-Service-Token); the core requires it in production. */
  CORE_SERVICE_TOKEN: z.string().min(16, 'CORE_SERVICE_TOKEN must be at least 16 characters').optional(),
  /** How often the edge brings Redis's copies of the rooms up to the database's version. */
  ROOM_SYNC_MS: z.coerce.number().int().min(200).default(2_000),
  MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1_024)
    .default(64 * 1024),
  /**
   * Proxies you run in front of the edge (net/client-address.ts): X-Forwarded-For is read only
   * when the socket's peer is in TRUST_PROXY_CIDRS (comma-separated networks or addresses), and
   * at most TRUST_PROXY_HOPS entries from the right (0: as many as trusted proxies appended).
   * TRUST_PROXY=1 means one hop. Hops without networks trust loopback and private ranges.
   */
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
  TRUST_PROXY: flagSetting(false),
  TRUST_PROXY_CIDRS: z.string().default(''),
  /** Per-address limits count an IPv6 client by this network prefix (64: one home or phone). */
  IPV6_LIMIT_PREFIX: z.coerce.number().int().min(32).max(128).default(64),
  /** Demo logins one client address may make per minute. */
  DEMO_LOGIN_PER_MINUTE: z.coerce.number().int().min(1).default(10),
  /** Proof of work: joins per second on one showtime, per edge process, before the edge raises the difficulty. */
  POW_SHOWTIME_JOINS_PER_SECOND: z.coerce.number().int().min(1).default(200),
  /** Proof of work: joins per minute from one address, per edge process, before its difficulty rises. */
  POW_ADDRESS_JOINS_PER_MINUTE: z.coerce.number().int().min(1).default(20),
  /** Key of the proof-of-work challenges' MAC, the same on every edge process (default: derived from ADMIN_TOKEN). */
  POW_SECRET: optionalText,
  /** How long a proof-of-work challenge may be solved and used. */
  POW_CHALLENGE_TTL_MS: z.coerce.number().int().min(5_000).max(3_600_000).default(120_000),
  /** Wrong admin tokens (console or API) one address may send in ten minutes before it is locked out. */
  ADMIN_LOCKOUT_ATTEMPTS: z.coerce.number().int().min(1).default(10),
  /**
   * Node: also serve /metrics without credentials on this port (0 = off), for a scraper on an
   * internal network; the public port serves /metrics to operators only.
   */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  METRICS_HOST: z.string().default('127.0.0.1'),
  EVENTS_POLL_MS: z.coerce.number().int().min(10).default(200),
  /**
   * Node: edge processes on EDGE_PORT (node:cluster), each with its own snapshot and caches,
   * sharing Redis. Absent: one per core when NODE_ENV=production and Redis is set, else one.
   */
  EDGE_PROCESSES: z.coerce.number().int().min(1).max(256).optional(),
  LOG_LEVEL: logLevelSetting,
});

export type EdgeConfig = ReturnType<typeof parseEdgeConfig>;

/** TRUST_PROXY_CIDRS checked (a bad network stops the start), or private ranges when only hops are set. */
function trustedProxyNetworks(text: string, hops: number, warnings: string[]): string[] {
  const cidrs = text
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean);
  try {
    createAddressSet(cidrs);
  } catch (error) {
    throw new Error(`Invalid edge configuration: TRUST_PROXY_CIDRS: ${(error as Error).message}`);
  }
  if (cidrs.length > 0 || hops === 0) return cidrs;
  warnings.push(
    'TRUST_PROXY_HOPS without TRUST_PROXY_CIDRS: X-Forwarded-For is believed from any loopback or private-network peer; name your proxies',
  );
  return [...PRIVATE_NETWORKS];
}

export function parseEdgeConfig(env: Record<string, string | undefined>) {
  const value = parseEnv('edge', edgeEnvSchema, env);
  const production = value.NODE_ENV === 'production';
  const warnings: string[] = [];
  const adminTokenWarning = checkDefaultSecret({
    service: 'edge',
    name: 'ADMIN_TOKEN',
    usingDefault: !value.ADMIN_TOKEN || value.ADMIN_TOKEN === DEV_ADMIN_TOKEN,
    host: value.EDGE_HOST,
    production,
  });
  if (adminTokenWarning) warnings.push(adminTokenWarning);
  const trustProxyHops = value.TRUST_PROXY_HOPS > 0 ? value.TRUST_PROXY_HOPS : value.TRUST_PROXY ? 1 : 0;
  const trustProxyCidrs = trustedProxyNetworks(value.TRUST_PROXY_CIDRS, trustProxyHops, warnings);
  const receiptJwk = value.FAIRNESS_RECEIPT_KEY
    ? parseReceiptJwk(value.FAIRNESS_RECEIPT_KEY)
    : DEV_FAIRNESS_RECEIPT_JWK;
  // A forged receipt fools only whoever checks it, so development may serve the public key on
  // any address (said loudly); production never (lib/secrets-policy.ts, as for ADMIN_TOKEN).
  const receiptKeyWarning = checkDefaultSecret({
    service: 'edge',
    name: 'FAIRNESS_RECEIPT_KEY',
    usingDefault: receiptJwk.d === DEV_FAIRNESS_RECEIPT_JWK.d,
    host: production ? value.EDGE_HOST : '127.0.0.1',
    production,
  });
  if (receiptKeyWarning) warnings.push(receiptKeyWarning);
  if (production && !value.TOKEN_SIGNING_KEY) throw new Error('TOKEN_SIGNING_KEY is required in production');
  // Demo login hands out identities for free: never in production, never beside a real
  // identity provider (one id namespace, so a demo id could be a real customer's).
  if (value.DEMO_LOGIN === true && production) throw new Error('DEMO_LOGIN=1 is refused when NODE_ENV=production');
  if (value.DEMO_LOGIN === true && value.CUSTOMER_JWKS_URL)
    throw new Error('DEMO_LOGIN=1 is refused together with CUSTOMER_JWKS_URL');
  const demoLogin = value.DEMO_LOGIN ?? (!production && !value.CUSTOMER_JWKS_URL);
  // Processes share the rooms, limits and one-time marks only through Redis.
  if ((value.EDGE_PROCESSES ?? 1) > 1 && !value.REDIS_URL)
    throw new Error('EDGE_PROCESSES above 1 needs REDIS_URL (the processes share the waiting room through it)');
  if (production && !value.CUSTOMER_JWKS_URL) {
    throw new Error('CUSTOMER_JWKS_URL (with CUSTOMER_ISSUER and CUSTOMER_AUDIENCE) is required in production');
  }
  return {
    production,
    port: value.EDGE_PORT,
    host: value.EDGE_HOST,
    acceptors: value.EDGE_ACCEPTORS,
    coreUrl: value.CORE_URL.replace(/\/+$/, ''),
    redisUrl: value.REDIS_URL ?? null,
    keyPrefix: value.REDIS_KEY_PREFIX,
    upstash:
      value.UPSTASH_REDIS_REST_URL && value.UPSTASH_REDIS_REST_TOKEN
        ? { url: value.UPSTASH_REDIS_REST_URL, token: value.UPSTASH_REDIS_REST_TOKEN }
        : null,
    adminToken: value.ADMIN_TOKEN ?? DEV_ADMIN_TOKEN,
    tokenSigningKey: value.TOKEN_SIGNING_KEY ?? null,
    tokenPublicJwks: value.TOKEN_PUBLIC_JWKS ?? null,
    fairnessReceiptJwk: receiptJwk,
    customerIdp: value.CUSTOMER_JWKS_URL
      ? {
          jwksUrl: value.CUSTOMER_JWKS_URL,
          issuer: value.CUSTOMER_ISSUER ?? null,
          audience: value.CUSTOMER_AUDIENCE ?? null,
          algorithms: value.CUSTOMER_ALGORITHMS.split(',')
            .map((a) => a.trim())
            .filter(Boolean),
        }
      : null,
    demoLogin,
    clockToleranceMs: value.TOKEN_CLOCK_TOLERANCE_MS,
    queueTokenTtlMs: value.QUEUE_TOKEN_TTL_MS,
    snapshotTtlMs: value.SNAPSHOT_TTL_MS,
    seatMapTtlMs: value.SEAT_MAP_TTL_MS,
    flood: { points: value.FLOOD_POINTS, windowMs: value.FLOOD_WINDOW_MS },
    coreTimeoutMs: value.CORE_TIMEOUT_MS,
    coreCallsInFlight: value.CORE_CALLS_IN_FLIGHT,
    coreQueueWaitMs: value.CORE_QUEUE_WAIT_MS,
    coreCallsPerCustomer: value.CORE_CALLS_PER_CUSTOMER,
    customerReadsPerMinute: value.CUSTOMER_READS_PER_MINUTE,
    operatorViewCoreBudgetMs: value.OPERATOR_VIEW_CORE_BUDGET_MS,
    shedLagMs: value.SHED_LAG_MS,
    coreServiceToken: value.CORE_SERVICE_TOKEN ?? null,
    roomSyncMs: value.ROOM_SYNC_MS,
    maxBodyBytes: value.MAX_BODY_BYTES,
    trustProxyHops,
    trustProxyCidrs,
    ipv6LimitPrefix: value.IPV6_LIMIT_PREFIX,
    demoLoginPerMinute: value.DEMO_LOGIN_PER_MINUTE,
    pow: {
      showtimeJoinsPerSecond: value.POW_SHOWTIME_JOINS_PER_SECOND,
      addressJoinsPerMinute: value.POW_ADDRESS_JOINS_PER_MINUTE,
      challengeTtlMs: value.POW_CHALLENGE_TTL_MS,
      secret: value.POW_SECRET ?? `admin-token-derived\n${value.ADMIN_TOKEN ?? DEV_ADMIN_TOKEN}`,
    },
    adminLockoutAttempts: value.ADMIN_LOCKOUT_ATTEMPTS,
    metricsPort: value.METRICS_PORT,
    metricsHost: value.METRICS_HOST,
    /** Said loudly at start (node.ts logs them). */
    warnings,
    eventsPollMs: value.EVENTS_POLL_MS,
    /** null: the Node entry decides (main.ts: one per core in production with Redis, else one). */
    processes: value.EDGE_PROCESSES ?? null,
    logLevel: value.LOG_LEVEL,
  };
}
