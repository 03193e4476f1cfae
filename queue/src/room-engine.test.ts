/** Engine behaviour that needs no Redis: input checks and recovery of an interrupted draw. */
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from './memory-store';
import { createRoomEngine } from './room-engine';
import { scripts } from './scripts.gen';
import type { ScriptStore } from './store';

describe('room engine', () => {
  it('refuses bad input as values, changing nothing', async () => {
    const room = createRoomEngine({ store: createMemoryStore() });
    expect(await room.configure('bad}id', {})).toMatchObject({ ok: false, code: 'invalid_input' });
    expect(await room.configure('42', { capacity: -1 })).toMatchObject({ ok: false, code: 'invalid_input' });
    expect(await room.configure('42', { bogus: 1 } as never)).toMatchObject({ ok: false, code: 'invalid_input' });
    expect(await room.join('42', 'has space')).toMatchObject({ ok: false, code: 'invalid_input' });
    expect(await room.stats('42')).toMatchObject({ ok: false, code: 'unknown_room' });
  });

  it('finishes an interrupted draw later, and applies a pause asked for meanwhile', async () => {
    const memory = createMemoryStore();
    let failDraws = true;
    // A process dying between reading the pre-queue and applying the draw looks like this.
    const store: ScriptStore = {
      ...memory,
      evalsha: (sha1, keys, args) =>
        failDraws && sha1 === scripts.draw.sha1 ? Promise.resolve([-8]) : memory.evalsha(sha1, keys, args),
    };
    const room = createRoomEngine({ store });
    await room.configure('42', { state: 'scheduled', capacity: 1 });
    for (const c of ['a', 'b', 'c']) await room.join('42', c);
    await room.configure('42', { state: 'open' });
    expect(await room.stats('42')).toMatchObject({ state: 'opening', prequeue: 3 });
    expect(await room.poll('42', 'late')).toMatchObject({ ok: true, state: 'none' });

    failDraws = false;
    expect(await room.configure('42', { state: 'paused' })).toMatchObject({ ok: true, state: 'paused' });
    const stats = await room.stats('42');
    expect(stats).toMatchObject({
      state: 'paused',
      prequeue: 0,
      waiting: 3,
      seed: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(await room.poll('42', 'b')).toMatchObject({ state: 'paused' });
  });

  it('lets the ticker finish a draw nobody completed', async () => {
    const memory = createMemoryStore();
    let failDraws = true;
    const store: ScriptStore = {
      ...memory,
      evalsha: (sha1, keys, args) =>
        failDraws && sha1 === scripts.draw.sha1 ? Promise.resolve([-8]) : memory.evalsha(sha1, keys, args),
    };
    const room = createRoomEngine({ store });
    await room.configure('7', { state: 'scheduled', capacity: 2 });
    for (const c of ['a', 'b', 'c']) await room.join('7', c);
    await room.configure('7', { state: 'open' });
    failDraws = false;
    expect(await room.tick('7')).toMatchObject({ ok: true, state: 'open', offered: 2 });
  });
});
