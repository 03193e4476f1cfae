import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createTurnPrior,
  entriesFromList,
  HISTORY_MAX_AGE_MS,
  priorTurnMs,
  TURNS_TO_RECORD,
  type TurnHistoryEntry,
} from './turn-history';

const NOW = 1_800_000_000_000;
const entry = (showtimeId: string, meanTurnMs: number, turns = 20, ageMs = 60_000): TurnHistoryEntry => ({
  showtimeId,
  meanTurnMs,
  turns,
  atMs: NOW - ageMs,
});

describe('entriesFromList', () => {
  it('reads the script list and skips what it cannot read', () => {
    expect(
      entriesFromList(['7', '120000:12:1800000000000', '8', 'garbage', '9', '0:5:1', '10', '5000:0:1', '11']),
    ).toEqual([{ showtimeId: '7', meanTurnMs: 120_000, turns: 12, atMs: 1_800_000_000_000 }]);
    expect(entriesFromList([])).toEqual([]);
  });
});

describe('priorTurnMs', () => {
  it('is the weighted median of recent rooms with enough turns', () => {
    expect(priorTurnMs([], NOW)).toBeNull();
    expect(priorTurnMs([entry('1', 90_000)], NOW)).toBe(90_000);
    // One odd room (a sale of free tickets, turns of seconds) does not move it.
    expect(priorTurnMs([entry('1', 90_000), entry('2', 100_000), entry('3', 3_000)], NOW)).toBe(90_000);
    // A room that saw many turns weighs more, but no more than fifty.
    expect(priorTurnMs([entry('1', 60_000, 50), entry('2', 200_000, 10), entry('3', 210_000, 10)], NOW)).toBe(60_000);
    expect(priorTurnMs([entry('1', 60_000, 5_000), entry('2', 200_000, 30), entry('3', 210_000, 30)], NOW)).toBe(
      200_000,
    );
  });

  it('leaves out rooms with too few turns and rooms from long ago', () => {
    expect(priorTurnMs([entry('1', 90_000, TURNS_TO_RECORD - 1)], NOW)).toBeNull();
    expect(priorTurnMs([entry('1', 90_000, 20, HISTORY_MAX_AGE_MS + 1)], NOW)).toBeNull();
    expect(priorTurnMs([entry('1', 90_000, 20, HISTORY_MAX_AGE_MS + 1), entry('2', 40_000)], NOW)).toBe(40_000);
  });

  it('always lies between the shortest and the longest recent mean', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            mean: fc.integer({ min: 1, max: 3_600_000 }),
            turns: fc.integer({ min: TURNS_TO_RECORD, max: 500 }),
          }),
          { minLength: 1, maxLength: 30 },
        ),
        (rooms) => {
          const prior = priorTurnMs(
            rooms.map((room, i) => entry(String(i), room.mean, room.turns)),
            NOW,
          )!;
          const means = rooms.map((room) => room.mean);
          expect(prior).toBeGreaterThanOrEqual(Math.min(...means));
          expect(prior).toBeLessThanOrEqual(Math.max(...means));
        },
      ),
    );
  });
});

describe('createTurnPrior', () => {
  it('answers at once with the last value read, reads again after the ttl, keeps the value when a read fails, and gives up on a read that never ends', async () => {
    let now = NOW;
    let reads = 0;
    let mode: 'answer' | 'fail' | 'hang' = 'answer';
    let rooms = [entry('1', 90_000)];
    const prior = createTurnPrior(
      () => {
        reads++;
        if (mode === 'fail') return Promise.reject(new Error('Redis down'));
        if (mode === 'hang') return new Promise<TurnHistoryEntry[]>(() => {});
        return Promise.resolve(rooms);
      },
      { ttlMs: 30_000, retryMs: 5_000, now: () => now },
    );
    const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
    expect(prior.current()).toBeNull(); // not read yet: the first call starts the read
    await settle();
    expect(prior.current()).toBe(90_000);
    expect(reads).toBe(1);
    rooms = [entry('2', 45_000)];
    now += 29_000;
    expect(prior.current()).toBe(90_000);
    expect(reads).toBe(1);
    now += 1_000;
    expect(prior.current()).toBe(90_000); // due: read in the background, answered from the old value
    prior.current(); // one read at a time
    await settle();
    expect(reads).toBe(2);
    expect(prior.current()).toBe(45_000);

    mode = 'fail';
    now += 30_000;
    prior.current();
    await settle();
    expect(prior.current()).toBe(45_000);
    expect(reads).toBe(3);
    now += 4_000;
    prior.current();
    expect(reads).toBe(3); // tried again after retryMs, not on every call
    now += 1_000;
    mode = 'hang';
    prior.current();
    expect(reads).toBe(4);
    now += 4_000;
    prior.current();
    expect(reads).toBe(4); // pending, not yet given up
    now += 1_000;
    mode = 'answer';
    rooms = [entry('3', 60_000)];
    prior.current();
    expect(reads).toBe(5); // the hung read is given up on
    await settle();
    expect(prior.current()).toBe(60_000);
    // refresh reads at once, whatever is pending or fresh.
    rooms = [entry('4', 70_000)];
    await prior.refresh();
    expect(reads).toBe(6);
    expect(prior.current()).toBe(70_000);
  });
});
