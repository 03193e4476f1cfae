/**
 * The monitoring in ops/: promtool checks the Prometheus config and rules and runs the rule unit
 * tests (every alert firing on its input series and staying quiet on harmless ones) when it is
 * installed (Debian package `prometheus`; .ci/run installs it). Without promtool only the static
 * checks run. The static checks hold the rules and the dashboard to the metrics the services
 * really expose: every series they read is rendered by the edge's or the core's /metrics, or
 * recorded by a rule; every alert has its runbook.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import postgres, { type Sql } from 'postgres';
import { Registry } from 'prom-client';
import { testDatabaseUrl } from '../support/env';
import { createCoreMetrics, registerBacklogGauges } from '../../core/src/metrics';
import { registerRetentionGauges } from '../../core/src/jobs/retention';
import { createEdgeMetrics } from '../../edge/src/metrics';

const promtool = spawnSync('promtool', ['--version']).status === 0;

const yaml = <T>(file: string): T =>
  JSON.parse(
    execFileSync(
      'python3',
      ['-c', 'import json,sys,yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))', file],
      { encoding: 'utf8' },
    ),
  ) as T;

interface Rule {
  record?: string;
  alert?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
const rulesOf = (file: string) => yaml<{ groups: { rules: Rule[] }[] }>(file).groups.flatMap((group) => group.rules);
const recording = rulesOf('ops/prometheus/recording-rules.yml');
const alerts = rulesOf('ops/prometheus/alert-rules.yml');
const dashboard = JSON.parse(readFileSync('ops/grafana/dashboards/flash-sale.json', 'utf8')) as {
  uid: string;
  panels: { type: string; title: string; targets?: { expr: string; datasource: { uid: string } }[] }[];
};
const dashboardExprs = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));

/** Metric names an expression reads (PromQL functions, keywords and label names left out). */
function seriesIn(expr: string): string[] {
  const withoutLabels = expr
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/"[^"]*"/g, '');
  const names = withoutLabels.match(/[a-zA-Z_:][a-zA-Z0-9_:]*/g) ?? [];
  const keywords = new Set([
    'sum',
    'max',
    'min',
    'rate',
    'increase',
    'by',
    'on',
    'and',
    'or',
    'unless',
    'vector',
    'clamp_min',
    'histogram_quantile',
    'min_over_time',
    'max_over_time',
    'le',
    'route',
    'status',
    'showtime',
    'limiter',
    'table',
    'job',
    'instance',
    'e',
  ]);
  return names.filter((name) => !keywords.has(name) && !/^\d/.test(name) && (name.includes('_') || name === 'up'));
}

let sql: Sql;
let exposed: Set<string>;

beforeAll(async () => {
  sql = postgres(testDatabaseUrl(), { max: 2, onnotice: () => {} });
  const core = createCoreMetrics(new Registry());
  registerBacklogGauges(core.registry, sql);
  registerRetentionGauges(core.registry, sql);
  const text = `${await core.registry.metrics()}\n${createEdgeMetrics().registry.render()}`;
  exposed = new Set(
    [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].flatMap(([, name, type]) =>
      type === 'histogram' ? [`${name}_bucket`, `${name}_sum`, `${name}_count`] : [name!],
    ),
  );
});
afterAll(async () => {
  await sql?.end();
});

describe('alert and recording rules', () => {
  it('read only series the services expose or the recording rules produce', () => {
    const known = new Set([...exposed, ...recording.map((rule) => rule.record!), 'up']);
    const unknown = [...recording, ...alerts].flatMap((rule) => seriesIn(rule.expr)).filter((name) => !known.has(name));
    expect(unknown).toEqual([]);
    // The series the alerts were written for are really there.
    for (const name of [
      'core_refunds_failing',
      'core_outbox_oldest_unpublished_age_seconds',
      'core_payments_oldest_pending_age_seconds',
      'core_database_up',
      'edge_http_requests_total',
      'edge_admissions_total',
      'edge_room_waiting',
      'core_retention_backlog_rows',
    ]) {
      expect(exposed.has(name), name).toBe(true);
    }
  });

  it('every alert has a severity, a summary, a description and a runbook', () => {
    expect(alerts.length).toBeGreaterThanOrEqual(8);
    for (const alert of alerts) {
      expect(['page', 'ticket'], alert.alert).toContain(alert.labels?.severity);
      expect(alert.annotations?.summary, alert.alert).toBeTruthy();
      expect(alert.annotations?.description, alert.alert).toBeTruthy();
      expect(alert.annotations?.runbook?.split('\n').filter(Boolean).length, alert.alert).toBeGreaterThanOrEqual(2);
    }
  });

  it.skipIf(!promtool)('promtool accepts the Prometheus config and its rule files', () => {
    const result = spawnSync('promtool', ['check', 'config', 'ops/prometheus/prometheus.yml'], { encoding: 'utf8' });
    expect(result.stdout + result.stderr).toContain('SUCCESS');
    expect(result.status).toBe(0);
  });

  it.skipIf(!promtool)(
    'promtool rule tests: each alert fires on its input series and stays quiet on harmless ones',
    () => {
      const result = spawnSync('promtool', ['test', 'rules', 'ops/prometheus/tests/alert-rules.test.yml'], {
        encoding: 'utf8',
      });
      expect(result.stdout + result.stderr).toContain('SUCCESS');
      expect(result.status, result.stdout + result.stderr).toBe(0);
      // Every alert is exercised by the tests.
      const tested = readFileSync('ops/prometheus/tests/alert-rules.test.yml', 'utf8');
      for (const alert of alerts) expect(tested, alert.alert).toContain(`alertname: ${alert.alert}`);
    },
  );
});

describe('Grafana dashboard', () => {
  it('reads only known series from the provisioned Prometheus data source, and covers the line, holds, payments, jobs and latency', () => {
    const known = new Set([...exposed, ...recording.map((rule) => rule.record!), 'up']);
    expect(dashboardExprs.flatMap(seriesIn).filter((name) => !known.has(name))).toEqual([]);
    const datasource = yaml<{ datasources: { uid: string; url: string }[] }>(
      'ops/grafana/provisioning/datasources/prometheus.yml',
    ).datasources[0]!;
    for (const panel of dashboard.panels)
      for (const target of panel.targets ?? []) expect(target.datasource.uid).toBe(datasource.uid);
    const titles = dashboard.panels.map((panel) => panel.title.toLowerCase()).join(' | ');
    for (const topic of ['waiting', 'admissions', 'holds', 'payments', 'refunds', 'outbox', 'retention', 'latency'])
      expect(titles).toContain(topic);
  });

  it('is provisioned in docker-compose.yml next to a Prometheus that scrapes the edge and the core', () => {
    const compose = yaml<{ services: Record<string, { volumes?: string[]; environment?: Record<string, string> }> }>(
      'docker-compose.yml',
    ).services;
    for (const name of ['prometheus', 'grafana']) {
      for (const volume of compose[name]!.volumes ?? []) expect(existsSync(volume.split(':')[0]!), volume).toBe(true);
    }
    const scrape = yaml<{ scrape_configs: { job_name: string; static_configs: { targets: string[] }[] }[] }>(
      'ops/prometheus/prometheus.yml',
    ).scrape_configs;
    expect(scrape.map((job) => job.job_name).sort()).toEqual(['core', 'edge']);
    // Each target is the service of that name, on a port it listens on for metrics.
    for (const job of scrape) {
      const [host, port] = job.static_configs[0]!.targets[0]!.split(':');
      const env = compose[host!]?.environment ?? {};
      expect(host).toBe(job.job_name);
      expect([env.METRICS_PORT, env.CORE_PORT, env.EDGE_PORT], job.job_name).toContain(port);
    }
  });
});
