import { describe, expect, it } from 'vitest';
import { buildReply } from '../reply-fields';
import { MiniRedis } from './mini-redis';

// The twin must refuse what Redis refuses, or a test on it hides a script's arithmetic bug
// (a ZRANGE index worked out from a fractional rate failed on Redis only).
describe('the in-process twin refuses what Redis refuses', () => {
  const db = new MiniRedis(() => 1_000);
  db.zset('z').add('a', 1);
  db.zset('z').add('b', 2);
  db.zset('z').add('c', 3);

  it('reads ZRANGE with integer and negative indices as Redis does', () => {
    expect(db.zrange('z', 0, -1).map((e) => e.member)).toEqual(['a', 'b', 'c']);
    expect(db.zrange('z', -2, 10).map((e) => e.member)).toEqual(['b', 'c']);
    expect(db.zrange('z', 2, 1)).toEqual([]);
  });

  it.each([
    ['ZRANGE start', () => db.zrange('z', 0.5, 2)],
    ['ZRANGE stop', () => db.zrange('z', 0, 1.5)],
    ['HINCRBY', () => db.hincrby('h', 'f', 0.5)],
    ['PEXPIRE', () => db.pexpire('z', Number.POSITIVE_INFINITY)],
  ])('%s with a non-integer argument', (_, call) => {
    expect(call).toThrow('ERR value is not an integer or out of range');
  });

  it('cuts reply numbers toward zero, as a Lua number becomes a Redis integer', () => {
    expect(buildReply('govern', { written: 2.9 })).toEqual([1, 2]);
    expect(buildReply('registry', {}, [-1.5, 'x'])).toEqual([1, -1, 'x']);
  });
});
