/**
 * The copier from the rooms' journals (Redis) into the admission log (PostgreSQL): six copiers
 * released together over several rounds chain every journal entry exactly once, without a gap
 * or a fork; the naive variant (head read without the row lock) collides. The log refuses
 * UPDATE and DELETE (and the same UPDATE goes through with the trigger off: the broken variant).
 */
import { Redis } from 'ioredis';
import type { Sql } from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entryHash, genesisHash } from '../../../lib/fairness-chain';
import { createFairnessJournal } from '../../../queue/src/fairness-journal';
import { createIoredisStore, createKeyBuilder, createRoomEngine } from '../../../queue/src/index';
import { ROOM_KEY_NAMES } from '../../../queue/src/keys';
import { fastRoom, ok } from '../../../queue/test/helpers';
import { testDatabaseUrl, testRedisNamespace, testRedisUrl } from '../../../test/support/env';
import { connectDatabase } from '../../src/db/connect';
import { copyAllJournals, copyJournal } from '../../src/fairness/fairness-copier';
import { findFairness, listLog } from '../../src/fairness/fairness-repo';
import { createCoreHarness, releasedTogether, type CoreHarness } from '../core-harness';

const COPIERS = 6;
const ROUNDS = 5;
let sql: Sql;
let h: CoreHarness;
let redis: Redis;
const keyPrefix = testRedisNamespace('fairness-copier');
let engine: ReturnType<typeof createRoomEngine>;
let journal: ReturnType<typeof createFairnessJournal>;

beforeAll(async () => {
  sql = connectDatabase(testDatabaseUrl(), { max: COPIERS + 2, applicationName: 'test-fairness-copier' });
  h = await createCoreHarness(sql);
  redis = new Redis(testRedisUrl());
  const store = createIoredisStore(redis);
  engine = createRoomEngine({ store, keyPrefix });
  journal = createFairnessJournal({ store, keyPrefix });
});
afterAll(async () => {
  const keys = await redis.keys(`${keyPrefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
  await sql.end();
});

/** A room with a line that moved: joins, admissions, a leave; the number of journal entries written. */
async function busyRoom(): Promise<number> {
  const { showtimeId } = await h.createShowtime({ layout: { rows: 1, columns: 4 } });
  const id = String(showtimeId);
  ok(await engine.configure(id, { ...fastRoom, capacity: 20 }));
  for (let i = 0; i < 40; i++) ok(await engine.join(id, `c${i}`));
  ok(await engine.tick(id));
  ok(await engine.leave(id, 'c39'));
  const written = Number(
    await redis.hget(createKeyBuilder(keyPrefix).forShowtime(id).room[ROOM_KEY_NAMES.indexOf('stats')]!, 'jSeq'),
  );
  expect(written).toBeGreaterThan(60);
  return showtimeId;
}

/** Problems with a showtime's log: gaps, duplicates, broken links, entries missing. */
async function logProblems(showtimeId: number): Promise<string[]> {
  const problems: string[] = [];
  const rows = await listLog(sql, showtimeId);
  const record = (await findFairness(sql, showtimeId))!;
  const written = Number(
    await redis.hget(
      createKeyBuilder(keyPrefix).forShowtime(String(showtimeId)).room[ROOM_KEY_NAMES.indexOf('stats')]!,
      'jSeq',
    ),
  );
  if (rows.length !== written) problems.push(`${rows.length} entries chained of ${written} written`);
  const seen = new Set(rows.map((r) => `${r.journal_epoch}.${r.journal_seq}`));
  if (seen.size !== rows.length) problems.push('a journal entry chained twice');
  let previous = await genesisHash(String(showtimeId), record.commitment);
  for (const [i, r] of rows.entries()) {
    if (r.seq !== i + 1) problems.push(`gap before ${r.seq}`);
    previous = await entryHash(previous, {
      seq: r.seq,
      kind: r.kind,
      buyerHash: r.buyer_hash,
      rank: r.rank,
      atMs: r.at_ms,
      drawIndex: r.draw_index,
      drawSize: r.draw_size,
    });
    if (previous !== r.hash) problems.push(`entry ${r.seq} does not link`);
  }
  if (record.head_hash !== previous || record.head_seq !== rows.length) problems.push('head is not the end');
  return problems;
}

async function race(lock: boolean) {
  const showtimeId = await busyRoom();
  const outcomes = await releasedTogether(COPIERS, () =>
    copyJournal({ sql, journal }, showtimeId, { batch: 7, lock }).then(
      (copied) => ({ copied, error: null as string | null }),
      (error: { code?: string }) => ({ copied: 0, error: String(error.code ?? error) }),
    ),
  );
  return { showtimeId, outcomes };
}

describe('fairness copier', () => {
  it(`${COPIERS} copiers at once over ${ROUNDS} rounds: every entry chained once, no gap, no fork`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { showtimeId, outcomes } = await race(true);
      expect(outcomes.filter((o) => o.error)).toEqual([]);
      expect(await logProblems(showtimeId)).toEqual([]);
      expect((await journal.read(String(showtimeId), 10)).entries).toEqual([]);
      // Copying again finds nothing new.
      expect(await copyJournal({ sql, journal }, showtimeId)).toBe(0);
    }
  });

  it("the background job's pass copies every showtime on sale", async () => {
    const showtimeId = await busyRoom();
    expect(await copyAllJournals({ sql, journal })).toBeGreaterThan(60);
    expect(await logProblems(showtimeId)).toEqual([]);
  });

  it('naive variant: without the row lock, copiers released together collide', async () => {
    let collisions = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const { outcomes } = await race(false);
      collisions += outcomes.filter((o) => o.error === '23505').length;
    }
    expect(collisions).toBeGreaterThan(0);
  });

  it('the log is append-only: UPDATE and DELETE are refused (and go through with the trigger off)', async () => {
    const showtimeId = await busyRoom();
    await copyJournal({ sql, journal }, showtimeId);
    await expect(sql`UPDATE admission_log SET rank = 1 WHERE showtime_id = ${showtimeId}`).rejects.toMatchObject({
      code: 'WRF01',
    });
    await expect(sql`DELETE FROM admission_log WHERE showtime_id = ${showtimeId}`).rejects.toMatchObject({
      code: 'WRF01',
    });
    // Broken variant, rolled back: the same UPDATE changes rows once the guard is off.
    const changed = await sql
      .begin(async (tx) => {
        await tx`ALTER TABLE admission_log DISABLE TRIGGER admission_log_no_change`;
        const rows = await tx`UPDATE admission_log SET rank = 1 WHERE showtime_id = ${showtimeId}`;
        throw Object.assign(new Error('roll back'), { count: rows.count });
      })
      .catch((error: { count?: number }) => error.count ?? 0);
    expect(changed).toBeGreaterThan(0);
    expect(await logProblems(showtimeId)).toEqual([]);
  });
});
