/**
 * The alert rules run for real: a real Prometheus server (Debian package `prometheus`, which
 * .ci/run installs) scrapes a real edge and a real core started here, loads the rules of
 * ops/prometheus/, and the test reads its /api/v1/alerts. Healthy, nothing fires; the core
 * killed, ServiceDown{job="core"} goes pending, then firing; the edge's own target stays up.
 *
 * Bounded in time: scrapes and evaluations every second, and the rules are a test copy in which
 * every `for:` is two seconds (the expressions are the shipped ones, unchanged). Without the
 * server binary the test is skipped, saying so.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { isolatedDatabase, testRedisNamespace, testRedisUrl } from '../support/env';
import { connectDatabase } from '../../core/src/db/connect';
import { parseCoreConfig } from '../../core/src/config';
import { startCore, type RunningCore } from '../../core/src/node';
import { redisStreamSink } from '../../core/src/events/event-sink';
import { parseEdgeConfig } from '../../edge/src/config';
import { startEdge, type RunningEdge } from '../../edge/src/node';
import { generateSigningJwk, loadTokenKeys } from '../../lib/token-keys';

const PROMETHEUS =
  ['/usr/bin/prometheus', 'prometheus'].find((bin) => spawnSync(bin, ['--version']).status === 0) ?? null;
if (!PROMETHEUS) {
  console.warn(
    'prometheus-live.test.ts skipped: no Prometheus server binary (Debian package `prometheus`; .ci/run installs it)',
  );
}

const ADMIN = 'prometheus-live-admin-token-0123456789';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The shipped rules with every `for:` shortened, so a test can watch pending → firing in seconds. */
function fastRules(text: string, forDuration = '2s'): string {
  return text.replace(/^(\s*for:\s*)\S+/gm, `$1${forDuration}`);
}

interface Alert {
  labels: Record<string, string>;
  state: 'pending' | 'firing';
  activeAt: string;
}

describe.skipIf(!PROMETHEUS)('alert rules in a real Prometheus', () => {
  let database: Awaited<ReturnType<typeof isolatedDatabase>>;
  let sql: ReturnType<typeof connectDatabase>;
  let redis: Redis;
  let core: RunningCore | null = null;
  let edge: RunningEdge;
  let prometheus: ChildProcess;
  let promUrl = '';
  let dir = '';
  let promLog = '';

  const api = async <T>(pathAndQuery: string): Promise<T> => {
    const response = await fetch(`${promUrl}${pathAndQuery}`);
    const body = (await response.json()) as { status: string; data: T };
    expect(body.status).toBe('success');
    return body.data;
  };
  const alerts = async () => (await api<{ alerts: Alert[] }>('/api/v1/alerts')).alerts;
  async function until<T>(
    what: string,
    probe: () => Promise<T>,
    accept: (value: T) => boolean,
    timeoutMs = 20_000,
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    let last: T = await probe();
    while (!accept(last)) {
      if (Date.now() > deadline)
        throw new Error(
          `${what}: not reached in ${timeoutMs} ms; last ${JSON.stringify(last)}\n${promLog.slice(-2000)}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 250));
      last = await probe();
    }
    return last;
  }

  beforeAll(async () => {
    database = await isolatedDatabase('prometheus-live');
    sql = connectDatabase(database.url, { max: 6, applicationName: 'test-prometheus-live' });
    redis = new Redis(testRedisUrl());
    const namespace = testRedisNamespace('prometheus-live');
    const keys = await loadTokenKeys({ signingJwk: await generateSigningJwk('prometheus-live') });
    core = await startCore(
      parseCoreConfig({
        CORE_PORT: '0',
        CORE_HOST: '127.0.0.1',
        ADMIN_TOKEN: ADMIN,
        PUBLIC_URL: 'http://127.0.0.1:1',
        LOG_LEVEL: 'silent',
      }),
      { sql, tokenKeys: keys, eventSink: redisStreamSink(redis, { keyPrefix: namespace }) },
    );
    const metricsPort = await freePort();
    edge = await startEdge(
      parseEdgeConfig({
        EDGE_PORT: '0',
        EDGE_HOST: '127.0.0.1',
        CORE_URL: core.url,
        REDIS_URL: testRedisUrl(),
        REDIS_KEY_PREFIX: namespace,
        ADMIN_TOKEN: ADMIN,
        METRICS_PORT: String(metricsPort),
        METRICS_HOST: '127.0.0.1',
        CORE_TIMEOUT_MS: '1000',
        LOG_LEVEL: 'silent',
      }),
      { tokenKeys: keys },
    );

    dir = mkdtempSync(path.join(tmpdir(), 'prometheus-live-'));
    for (const file of ['recording-rules.yml', 'alert-rules.yml']) {
      writeFileSync(path.join(dir, file), fastRules(readFileSync(path.join('ops/prometheus', file), 'utf8')));
    }
    writeFileSync(
      path.join(dir, 'prometheus.yml'),
      [
        'global:',
        '  scrape_interval: 1s',
        '  scrape_timeout: 900ms',
        '  evaluation_interval: 1s',
        'rule_files: [recording-rules.yml, alert-rules.yml]',
        'scrape_configs:',
        '  - job_name: edge',
        `    static_configs: [{ targets: ["127.0.0.1:${metricsPort}"] }]`,
        '  - job_name: core',
        `    static_configs: [{ targets: ["${new URL(core.url).host}"] }]`,
        '',
      ].join('\n'),
    );
    const port = await freePort();
    promUrl = `http://127.0.0.1:${port}`;
    prometheus = spawn(
      PROMETHEUS!,
      [
        `--config.file=${path.join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${path.join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    prometheus.stdout!.on('data', (chunk) => (promLog += chunk));
    prometheus.stderr!.on('data', (chunk) => (promLog += chunk));
    await until(
      'Prometheus ready',
      async () =>
        fetch(`${promUrl}/-/ready`).then(
          (r) => r.status,
          () => 0,
        ),
      (status) => status === 200,
    );
  }, 60_000);

  afterAll(async () => {
    prometheus?.kill('SIGTERM');
    await edge?.close();
    await core?.close();
    await sql?.end();
    await database?.drop();
    redis?.disconnect();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('loads every shipped rule, scrapes both services and stays quiet while they are healthy', async () => {
    const groups = await api<{ groups: { rules: { name: string; type: string; health: string }[] }[] }>(
      '/api/v1/rules',
    );
    const rules = groups.groups.flatMap((group) => group.rules);
    const shipped = (readFileSync('ops/prometheus/alert-rules.yml', 'utf8').match(/^\s*- alert:/gm) ?? []).length;
    expect(rules.filter((rule) => rule.type === 'alerting')).toHaveLength(shipped);
    await until(
      'both targets up',
      () => api<{ activeTargets: { labels: { job: string }; health: string }[] }>('/api/v1/targets'),
      (data) =>
        ['edge', 'core'].every((job) => data.activeTargets.some((t) => t.labels.job === job && t.health === 'up')),
    );
    // Let several evaluations pass (every `for:` is 2 s here): nothing may be pending or firing.
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    const evaluated = (await api<typeof groups>('/api/v1/rules')).groups.flatMap((group) => group.rules);
    expect(
      evaluated.filter((rule) => rule.health !== 'ok' && rule.health !== 'unknown'),
      'rules that fail to evaluate',
    ).toEqual([]);
    expect(await alerts()).toEqual([]);
  }, 40_000);

  it('the core killed: ServiceDown for the core goes pending, then firing; the edge is not named', async () => {
    await core!.close();
    core = null;
    // Poll until it fires, noting each state seen: pending first (its `for` runs), then firing.
    const seen: string[] = [];
    const firing = await until(
      'ServiceDown firing',
      async () => {
        const list = await alerts();
        const state = list.find((a) => a.labels.alertname === 'ServiceDown' && a.labels.job === 'core')?.state;
        if (state && seen.at(-1) !== state) seen.push(state);
        return list;
      },
      (list) =>
        list.some((a) => a.labels.alertname === 'ServiceDown' && a.labels.job === 'core' && a.state === 'firing'),
    );
    expect(seen).toEqual(['pending', 'firing']);
    const down = firing.filter((a) => a.labels.alertname === 'ServiceDown');
    expect(down.map((a) => a.labels.job)).toEqual(['core']);
    expect(down[0]!.labels.severity).toBe('page');
    const [up] = await api<{ result: { value: [number, string] }[] }>(
      `/api/v1/query?query=${encodeURIComponent('up{job="core"}')}`,
    ).then((d) => d.result);
    expect(up!.value[1]).toBe('0');
  }, 40_000);
});
