import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { expect, it } from 'vitest';

/**
 * docker-compose.yml cannot be run here (no Docker engine), so it is checked for validity:
 * it parses, every dependency exists, long-running services have health checks, ports follow
 * the contract, and every command points at a file in this repository.
 */
it('docker-compose.yml is a valid description of the stack', () => {
  const json = execFileSync(
    'python3',
    ['-c', 'import json,sys,yaml; print(json.dumps(yaml.safe_load(open("docker-compose.yml"))))'],
    { encoding: 'utf8' },
  );
  const compose = JSON.parse(json) as {
    services: Record<
      string,
      {
        command?: string[];
        ports?: string[];
        healthcheck?: unknown;
        depends_on?: Record<string, { condition: string }>;
        environment?: Record<string, string>;
      }
    >;
  };
  const services = compose.services;
  expect(Object.keys(services).sort()).toEqual([
    'core',
    'edge',
    'grafana',
    'migrate',
    'payment',
    'postgres',
    'prometheus',
    'redis',
    'ticker',
  ]);
  for (const [name, service] of Object.entries(services)) {
    for (const dependency of Object.keys(service.depends_on ?? {}))
      expect(services[dependency], `${name} depends on ${dependency}`).toBeDefined();
    const script = service.command?.find((part) => /\.(ts|js)$/.test(part));
    if (script) expect(existsSync(script), `${name} runs ${script}`).toBe(true);
  }
  for (const name of ['postgres', 'redis', 'core', 'payment', 'edge'])
    expect(services[name]!.healthcheck, name).toBeDefined();
  // Only the edge faces buyers: it alone is published on every address; the pay page and the
  // dashboards on the host's loopback; the core, PostgreSQL and Redis not at all.
  expect(services.edge!.ports).toEqual(['8080:8080']);
  for (const name of ['core', 'postgres', 'redis', 'migrate', 'ticker'])
    expect(services[name]!.ports, name).toBeUndefined();
  for (const [name, service] of Object.entries(services)) {
    if (name !== 'edge') for (const port of service.ports ?? []) expect(port, name).toMatch(/^127\.0\.0\.1:/);
  }
  expect(services.core!.environment).toMatchObject({ CORE_SERVICE_TOKEN: expect.any(String), HOST: '0.0.0.0' });
  expect(services.core!.environment).toMatchObject({
    DATABASE_URL: expect.any(String),
    REDIS_URL: expect.any(String),
    PUBLIC_URL: expect.any(String),
  });
  // Redis keeps an append-only file on a volume: a restart must not lose the rooms and the event stream.
  expect(services.redis!.command).toEqual(expect.arrayContaining(['--appendonly', 'yes', '--appendfsync', 'everysec']));
  expect((services.redis as { volumes?: string[] }).volumes?.some((volume) => volume.endsWith(':/data'))).toBe(true);
});
