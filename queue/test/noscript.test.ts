/**
 * The script cache can be emptied under us (restart, failover, SCRIPT FLUSH): calls must
 * reload by EVAL and never surface NOSCRIPT. Runs on a private redis-server, since
 * SCRIPT FLUSH is server-wide.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIoredisStore } from '../src/ioredis-store';
import { createRoomEngine } from '../src/room-engine';
import { scripts } from '../src/scripts.gen';
import { runScript, type ScriptStore } from '../src/store';
import { fastRoom, ok, sleep } from './helpers';
import { startPrivateRedis, type PrivateRedis } from './redis-servers';

describe('script cache loss', () => {
  let server: PrivateRedis;
  let client: Redis;
  let admin: Redis;
  beforeAll(async () => {
    server = await startPrivateRedis();
    client = new Redis({ port: server.ports[0], host: '127.0.0.1' });
    admin = new Redis({ port: server.ports[0], host: '127.0.0.1' });
  });
  afterAll(async () => {
    await client?.quit();
    await admin?.quit();
    await server?.stop();
  });

  it('has generated SHA1s equal to what SCRIPT LOAD answers', async () => {
    for (const script of Object.values(scripts)) {
      expect(await admin.script('LOAD', script.source)).toBe(script.sha1);
    }
  });

  it('keeps serving while SCRIPT FLUSH runs mid-traffic', async () => {
    const store = createIoredisStore(client);
    let evals = 0;
    const counting: ScriptStore = { ...store, eval: (...args) => (evals++, store.eval(...args)) };
    const room = createRoomEngine({ store: counting });
    ok(await room.configure('flush', { ...fastRoom, capacity: 3 }));
    const customers = Array.from({ length: 50 }, (_, i) => `f${i}`);
    let flushing = true;
    const flusher = (async () => {
      for (let i = 0; i < 10; i++) {
        await admin.script('FLUSH');
        await sleep(5);
      }
      flushing = false;
    })();
    let calls = 0;
    while (flushing) {
      const results = await Promise.all(
        customers.map((c, i) => (i % 2 ? room.poll('flush', c) : room.join('flush', c))),
      );
      results.forEach(ok);
      calls += results.length;
    }
    await flusher;
    await admin.script('FLUSH');
    ok(await room.tick('flush'));
    expect(calls).toBeGreaterThan(0);
    expect(evals).toBeGreaterThan(0);
    // After a reload, EVALSHA works again without a fallback.
    const before = evals;
    await runScript(counting, scripts.registry, ['wr:rooms'], ['list']);
    await runScript(counting, scripts.registry, ['wr:rooms'], ['list']);
    expect(evals - before).toBe(1);
  });

  it('answers after a Redis restart: lost rooms are refused, not errors, and come back when configured', async () => {
    const room = createRoomEngine({ store: createIoredisStore(client) });
    ok(await room.configure('restart', { ...fastRoom }));
    ok(await room.join('restart', 'a'));
    await server.restart();
    // ioredis reconnects and replays; the room's data did not survive (Redis is only a gate).
    expect(await room.join('restart', 'a')).toMatchObject({ ok: false, code: 'unknown_room' });
    ok(await room.configure('restart', { ...fastRoom }));
    expect(ok(await room.join('restart', 'a')).state).toBe('offered');
  });
});
