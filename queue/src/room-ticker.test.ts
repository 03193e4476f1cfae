import { describe, expect, it } from 'vitest';
import { createMemoryStore } from './memory-store';
import { createRoomEngine } from './room-engine';
import { createRoomTicker } from './room-ticker';

describe('room ticker', () => {
  it('opens due rooms and admits in every registered room, and skips closed ones', async () => {
    const engine = createRoomEngine({ store: createMemoryStore() });
    await engine.configure('a', { state: 'open', capacity: 2, tickGapMs: 60_000 });
    await engine.configure('b', { state: 'scheduled', opensAtMs: Date.now() + 40, capacity: 2 });
    await engine.configure('c', { state: 'closed' });
    for (const c of ['x', 'y', 'z']) {
      await engine.join('a', c);
      await engine.join('b', c);
    }
    expect(await engine.listRooms()).toEqual(['a', 'b']);
    await new Promise((r) => setTimeout(r, 50));
    const ticker = createRoomTicker({ engine, intervalMs: 10 });
    const round = await ticker.tickAll();
    expect(round.rooms).toBe(2);
    const b = await engine.stats('b');
    expect(b).toMatchObject({ ok: true, state: 'open', offered: 2, waiting: 1 });
    const a = await engine.stats('a');
    expect(a).toMatchObject({ offered: 2, waiting: 1 });

    ticker.start();
    await new Promise((r) => setTimeout(r, 30));
    await ticker.stop();
  });

  it("puts each room's turn length into the cinema's history now and then, and keeps ticking when that fails", async () => {
    const engine = createRoomEngine({ store: createMemoryStore() });
    await engine.configure('a', { state: 'open', capacity: 6, admitPerMinute: 60_000, admitBurst: 100, tickGapMs: 0 });
    const buyers = ['t1', 't2', 't3', 't4', 't5', 't6'];
    for (const c of buyers) await engine.join('a', c);
    for (const c of buyers) await engine.claim('a', c);
    await new Promise((r) => setTimeout(r, 60));
    for (const c of buyers) await engine.release('a', c);
    const recorded: string[] = [];
    const record = engine.recordTurns;
    let failing = false;
    const watched = {
      ...engine,
      recordTurns: async (id: string) => {
        recorded.push(id);
        if (failing) throw new Error('Redis down');
        return record(id);
      },
    };
    const errors: string[] = [];
    const ticker = createRoomTicker({
      engine: watched,
      intervalMs: 10,
      recordTurnsEveryMs: 100,
      logger: { info() {}, error: (_o, message) => errors.push(message ?? '') },
    });
    await ticker.tickAll();
    expect(recorded).toEqual(['a']);
    expect(await engine.turnPrior()).toBeGreaterThanOrEqual(55);
    await ticker.tickAll(); // within recordTurnsEveryMs: not again
    expect(recorded).toEqual(['a']);
    await new Promise((r) => setTimeout(r, 110));
    failing = true;
    const round = await ticker.tickAll();
    expect(recorded).toEqual(['a', 'a']);
    expect(round).toMatchObject({ rooms: 1, failed: 0 });
    expect(errors).toEqual(['recording turn history failed']);
  });
});
