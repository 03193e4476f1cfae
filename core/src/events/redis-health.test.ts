import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import { expect, it } from 'vitest';
import { watchRedisClient } from './redis-health';

it('an outage is logged once when it starts and once when it ends, however many retries fail', () => {
  const client = new EventEmitter();
  const lines: string[] = [];
  const isDown = watchRedisClient(client as unknown as Redis, {
    warn: (_o, m) => lines.push(`warn ${m}`),
    info: (_o, m) => lines.push(`info ${m}`),
  });
  client.emit('ready'); // a normal start logs nothing
  for (let i = 0; i < 50; i++)
    client.emit('error', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
  expect(isDown()).toBe(true);
  client.emit('ready');
  expect(isDown()).toBe(false);
  expect(lines).toEqual(['warn redis unreachable; booking events wait in the outbox', 'info redis reachable again']);
  // Without the listener an 'error' event would throw: the client must always have one.
  expect(client.listenerCount('error')).toBe(1);
});
