import { afterAll, beforeAll } from 'vitest';
import type { Sql } from 'postgres';
import { Redis } from 'ioredis';
import { testDatabaseUrl, testRedisNamespace, testRedisUrl } from '../../../test/support/env';
import { connectDatabase } from '../../src/db/connect';
import { createIoredisStore } from '../../../queue/src/index';
import { createCoreHarness, type CoreHarness } from '../core-harness';
import { holdContract } from '../hold-contract';

let sql: Sql;
let redis: Redis;
let harness: CoreHarness;
let gated: CoreHarness;

beforeAll(async () => {
  sql = connectDatabase(testDatabaseUrl(), { max: 32, applicationName: 'test-hold' });
  redis = new Redis(testRedisUrl());
  harness = await createCoreHarness(sql);
  // The same contract with the Redis seat gate in front of the database (core/src/gate/).
  gated = await createCoreHarness(sql, {
    gate: { store: createIoredisStore(redis), keyPrefix: testRedisNamespace('hold-gate') },
  });
});
afterAll(async () => {
  await sql.end();
  redis?.disconnect();
});

holdContract('PostgreSQL', () => harness, { racers: 64, rounds: 200, reversedRounds: 200 });
holdContract('PostgreSQL behind the seat gate', () => gated, { racers: 64, rounds: 200, reversedRounds: 200 });
