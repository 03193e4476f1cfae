import { afterAll, beforeAll } from 'vitest';
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../../src/db/embedded';
import { migrate } from '../../src/db/migrate';
import { createCoreHarness, type CoreHarness } from '../core-harness';
import { holdContract } from '../hold-contract';

// The same hold rules on embedded PGlite through the wire protocol with one connection, as
// `npm start` runs it without DATABASE_URL. Smaller scale: PGlite runs one query at a time.
let embedded: EmbeddedDatabase;
let harness: CoreHarness;

beforeAll(async () => {
  embedded = await startEmbeddedDatabase();
  await migrate(embedded.sql);
  harness = await createCoreHarness(embedded.sql);
});
afterAll(async () => {
  await embedded?.close();
});

holdContract('PGlite', () => harness, { racers: 16, rounds: 20, reversedRounds: 20 });
