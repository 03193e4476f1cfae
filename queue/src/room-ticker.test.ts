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
});
