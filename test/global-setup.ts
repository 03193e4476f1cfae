import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import postgres from 'postgres';
import { Redis } from 'ioredis';
import { migrate } from '../core/src/db/migrate';

const ADMIN_URL = process.env.TEST_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    redisUrl: string;
    redisNamespace: string;
    runId: string;
    /** A migrated database nobody connects to, cloned by isolatedDatabase(). */
    templateDatabase: string;
    adminDatabaseUrl: string;
  }
}

/**
 * Creates this run's own database (migrated) and Redis namespace, and drops both afterwards.
 * The shared servers are never flushed: only what this run created is removed.
 */
export default async function setup(project: TestProject) {
  const runId = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const databaseName = `wr_test_${runId}`;
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${databaseName}`);
  const databaseUrl = new URL(ADMIN_URL);
  databaseUrl.pathname = `/${databaseName}`;

  const sql = postgres(databaseUrl.toString(), { max: 1, onnotice: () => {} });
  await migrate(sql);
  await sql.end();
  // Test files whose background jobs act on every row (sweeper, reconciler, relay) get a
  // database of their own, cloned from this template so they do not disturb other files.
  const templateDatabase = `${databaseName}_template`;
  await admin.unsafe(`CREATE DATABASE ${templateDatabase} TEMPLATE ${databaseName}`);

  const redisNamespace = `t:${runId}:`;
  project.provide('databaseUrl', databaseUrl.toString());
  project.provide('redisUrl', REDIS_URL);
  project.provide('redisNamespace', redisNamespace);
  project.provide('runId', runId);
  project.provide('templateDatabase', templateDatabase);
  project.provide('adminDatabaseUrl', ADMIN_URL);

  return async function teardown() {
    const leftovers = await admin<{ datname: string }[]>`
      SELECT datname FROM pg_database WHERE datname LIKE ${`${databaseName}%`}`;
    for (const { datname } of leftovers) await admin.unsafe(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    await admin.end();
    await deleteNamespace(REDIS_URL, redisNamespace);
  };
}

async function deleteNamespace(url: string, namespace: string) {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${namespace}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
