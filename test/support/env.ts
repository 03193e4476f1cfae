import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import postgres from 'postgres';

/**
 * A value of the integration project's global setup. Tests beside the code run in the unit
 * project, which has no servers and no setup (vitest.config.ts): such a test asking for a
 * database is in the wrong place, and says so instead of failing on `undefined`.
 */
function provided<K extends 'databaseUrl' | 'redisUrl' | 'redisNamespace' | 'templateDatabase' | 'adminDatabaseUrl'>(
  key: K,
): string {
  const value = inject(key);
  if (typeof value !== 'string') {
    throw new Error(
      `no ${key}: tests that need PostgreSQL or Redis live under a test/ folder (the integration project)`,
    );
  }
  return value;
}

/** This run's migrated database (created by test/global-setup.ts). */
export const testDatabaseUrl = (): string => provided('databaseUrl');
export const testRedisUrl = (): string => provided('redisUrl');

/**
 * A Redis key prefix of its own for one test file or test: `t:<run>:<random>:`.
 * The global teardown removes everything under the run's prefix.
 */
export function testRedisNamespace(label = ''): string {
  return `${provided('redisNamespace')}${label ? `${label}:` : ''}${randomBytes(4).toString('hex')}:`;
}

/**
 * A migrated database of its own for one test file (cloned from the run's template), for
 * files whose background jobs act on every row. Drop it in afterAll; the global teardown
 * drops any left behind.
 */
export async function isolatedDatabase(label: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${provided('templateDatabase').replace(/_template$/, '')}_${label.replace(/\W/g, '')}_${randomBytes(3).toString('hex')}`;
  const admin = postgres(provided('adminDatabaseUrl'), { max: 1, onnotice: () => {} });
  // CREATE DATABASE … TEMPLATE needs the template to be idle; setups of other files may clone
  // it at the same instant, so retry briefly.
  for (let attempt = 0; ; attempt++) {
    try {
      await admin.unsafe(`CREATE DATABASE ${name} TEMPLATE ${provided('templateDatabase')}`);
      break;
    } catch (error) {
      if (attempt >= 20 || (error as { code?: string }).code !== '55006') throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 200));
    }
  }
  const url = new URL(provided('adminDatabaseUrl'));
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}
