import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';

/** This run's migrated database (created by test/global-setup.ts). */
export const testDatabaseUrl = (): string => inject('databaseUrl');
export const testRedisUrl = (): string => inject('redisUrl');

/**
 * A Redis key prefix of its own for one test file or test: `t:<run>:<random>:`.
 * The global teardown removes everything under the run's prefix.
 */
export function testRedisNamespace(label = ''): string {
  return `${inject('redisNamespace')}${label ? `${label}:` : ''}${randomBytes(4).toString('hex')}:`;
}
