import { afterAll, beforeAll } from 'vitest';
import type { Sql } from 'postgres';
import { testDatabaseUrl } from '../../../test/support/env';
import { connectDatabase } from '../../src/db/connect';
import { createCoreHarness, type CoreHarness } from '../core-harness';
import { holdContract } from '../hold-contract';

let sql: Sql;
let harness: CoreHarness;

beforeAll(async () => {
  sql = connectDatabase(testDatabaseUrl(), { max: 32, applicationName: 'test-hold' });
  harness = await createCoreHarness(sql);
});
afterAll(async () => {
  await sql.end();
});

holdContract('PostgreSQL', () => harness, { racers: 64, rounds: 200, reversedRounds: 200 });
