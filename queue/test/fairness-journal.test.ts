/**
 * The fairness journal (lua/includes/room.lua `journal`, read by src/fairness-journal.ts) on
 * every store adapter: joins, the opening draw (with each member's index in the sorted
 * pre-queue, so the seed's permutation can be checked), leaves, admissions in rank order, a
 * walk-away passed over and its return; numbered without gaps.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRedisNamespace, testRedisUrl } from '../../test/support/env';
import { drawOrder } from '../src/fair-draw';
import { createFairnessJournal, type JournalEntry } from '../src/fairness-journal';
import { createRoomEngine } from '../src/room-engine';
import { fastRoom, nextShowtimeId, ok, sleep } from './helpers';
import { allFactories, type StoreHandle } from './stores';

const selected = process.env.QUEUE_STORES?.split(',');
const factories = allFactories.filter((f) => !selected || selected.includes(f.name.split(' ')[0]!));

describe.each(factories)('fairness journal on $name', (factory) => {
  let handle: StoreHandle;
  beforeAll(async () => {
    handle = await factory.open(testRedisUrl());
  });
  afterAll(async () => {
    await handle?.close();
  });
  const parts = () => {
    const keyPrefix = testRedisNamespace('journal');
    return {
      room: createRoomEngine({ store: handle.store, keyPrefix, drawChunk: 2 }),
      journal: createFairnessJournal({ store: handle.store, keyPrefix }),
    };
  };
  const brief = (entries: JournalEntry[]) => entries.map((e) => `${e.kind} ${e.customerId} ${e.rank}`);

  it('journals joins, the draw with its input order, a leave and admissions in rank order, numbered without gaps', async () => {
    const { room, journal } = parts();
    const show = nextShowtimeId();
    ok(
      await room.configure(show, { ...fastRoom, capacity: 10, state: 'scheduled', opensAtMs: Date.now() + 3_600_000 }),
    );
    const members = ['m3', 'm1', 'm5', 'm2', 'm4'];
    for (const m of members) ok(await room.join(show, m));
    ok(await room.configure(show, { state: 'open' }));
    ok(await room.leave(show, 'm2'));
    ok(await room.join(show, 'late'));
    ok(await room.tick(show));
    const { entries, elements } = await journal.read(show, 100);
    expect(entries.map((e) => e.seq)).toEqual(entries.map((_, i) => i + 1));
    expect(new Set(entries.map((e) => e.epoch)).size).toBe(1);
    expect(brief(entries.slice(0, 5))).toEqual(members.map((m) => `joined ${m} 0`));

    // The draw: each member's index in the sorted pre-queue, and where the revealed seed puts it.
    const drawn = entries.filter((e) => e.kind === 'drawn');
    expect(drawn).toHaveLength(5);
    const { seed } = ok(await room.stats(show));
    const order = await drawOrder(seed!, ['0', '1', '2', '3', '4']);
    const sorted = [...members].sort();
    for (const e of drawn) {
      expect(e.drawSize).toBe(5);
      expect(sorted[e.drawIndex!]).toBe(e.customerId);
      expect(e.rank).toBe(order.indexOf(String(e.drawIndex)) + 1);
    }
    const rankOf = new Map(drawn.map((e) => [e.customerId, e.rank]));
    expect(brief(entries.filter((e) => e.kind === 'left'))).toEqual([`left m2 ${rankOf.get('m2')}`]);
    expect(brief(entries.filter((e) => e.kind === 'joined').slice(5))).toEqual(['joined late 6']);
    const admitted = entries.filter((e) => e.kind === 'admitted');
    expect(admitted.map((e) => e.rank)).toEqual([...admitted.map((e) => e.rank)].sort((a, b) => a - b));
    expect(admitted.map((e) => e.customerId)).toContain('late');

    // Trimmed by number, a whole call's element at a time: what was copied goes, nothing else.
    const last = entries.at(-1)!;
    expect(await journal.trim(show, last.epoch, last.seq - 1)).toBe(elements - 1);
    expect((await journal.read(show, 100)).entries.at(-1)).toEqual(last);
    expect(await journal.trim(show, 'another-epoch', last.seq)).toBe(0);
    expect(await journal.trim(show, last.epoch, last.seq)).toBe(1);
    expect((await journal.read(show, 100)).entries).toEqual([]);
  });

  it('journals a walk-away passed over and its return', async () => {
    const { room, journal } = parts();
    const show = nextShowtimeId();
    ok(await room.configure(show, { ...fastRoom, capacity: 1, offerWindowMs: 60_000 }));
    for (const who of ['first', 'silent', 'present']) ok(await room.join(show, who));
    await sleep(4_300);
    ok(await room.poll(show, 'present'));
    ok(await room.release(show, 'first'));
    ok(await room.poll(show, 'silent'));
    const changes = brief((await journal.read(show, 100)).entries).filter((e) => !e.startsWith('joined'));
    expect(changes).toEqual(['admitted first 1', 'passed_over silent 2', 'admitted present 3', 'returned silent 2']);
  });
});
