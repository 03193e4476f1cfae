import type { Sql } from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isolatedDatabase } from '../../../test/support/env';
import { connectDatabase } from '../../src/db/connect';
import { attemptRolledBack } from './rolled-back';

/**
 * The hold path's single-column rules live in domains (read once per session, not re-parsed
 * for every statement as table CHECKs are). Each one still refuses a value outside its list,
 * with check_violation named by the domain's constraint. The broken variant drops the domain's
 * constraint inside a transaction that is rolled back: the same write then goes through, so
 * each case is shown to be refused by the domain and nothing else.
 */
let db: { url: string; drop(): Promise<void> };
let sql: Sql;
beforeAll(async () => {
  db = await isolatedDatabase('domains');
  sql = connectDatabase(db.url, { max: 2, applicationName: 'test-domains' });
});
afterAll(async () => {
  await sql.end({ timeout: 1 });
  await db.drop();
});

const cases = [
  {
    domain: 'hold_status',
    constraint: 'hold_status_known',
    write: (tx: Sql) => tx`
      INSERT INTO seat_hold (id, showtime_id, customer_id, seat_codes, expires_at, status, ended_at)
      VALUES (gen_random_uuid(), 1, 'c', ARRAY['A1'], now() + interval '1 minute', 'LOST', now())`,
  },
  {
    domain: 'outbox_event_type',
    constraint: 'outbox_event_type_known',
    write: (tx: Sql) => tx`INSERT INTO outbox (type, showtime_id, payload) VALUES ('HoldStolen', 1, '{}')`,
  },
  {
    domain: 'state_entity_type',
    constraint: 'state_entity_type_known',
    write: (tx: Sql) => tx`
      INSERT INTO state_transition (entity_type, entity_id, to_state, cause) VALUES ('ticket', 'x', 'ACTIVE', 'test')`,
  },
];

const attempt = (write: (tx: Sql) => Promise<unknown>, before?: (tx: Sql) => Promise<unknown>) =>
  attemptRolledBack(sql, write, before);

describe.each(cases)('$domain', ({ domain, constraint, write }) => {
  it('refuses a value outside its list with check_violation', async () => {
    expect(await attempt(write)).toEqual({ refused: true, code: '23514', constraint });
  });

  it('broken variant: without the domain constraint the same write goes through', async () => {
    expect(await attempt(write, (tx) => tx.unsafe(`ALTER DOMAIN ${domain} DROP CONSTRAINT ${constraint}`))).toEqual({
      refused: false,
    });
  });
});
