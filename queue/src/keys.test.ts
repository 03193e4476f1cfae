import { describe, expect, it } from 'vitest';
import { createKeyBuilder, ROOM_KEY_NAMES } from './keys';

describe('keys', () => {
  it('puts the namespace prefix in front and shares one hash tag per showtime', () => {
    const keys = createKeyBuilder('t:abc:ff00aa:').forShowtime('42');
    expect(keys.room[ROOM_KEY_NAMES.indexOf('line')]).toBe('t:abc:ff00aa:wr:{show:42}:line');
    expect(keys.cfg).toBe('t:abc:ff00aa:wr:{show:42}:cfg');
    expect(keys.customerBucket('c1')).toBe('t:abc:ff00aa:wr:{show:42}:tb:c:c1');
    for (const key of [...keys.room, keys.showtimeBucket]) expect(key).toContain('{show:42}');
  });

  it('refuses showtime ids that would break the hash tag', () => {
    const builder = createKeyBuilder();
    expect(() => builder.forShowtime('4}2')).toThrow(RangeError);
    expect(() => builder.forShowtime('4}2')).toThrow(RangeError); // a refused id is not kept
  });

  it("makes a showtime's keys once, frozen, with the join scripts' list: the room's keys, then the addresses", () => {
    const builder = createKeyBuilder('p:');
    const keys = builder.forShowtime('7');
    expect(builder.forShowtime('7')).toBe(keys);
    expect(keys.joining('2001:db8::/64')).toEqual([...keys.room, keys.address('2001:db8::/64')]);
    expect(keys.address('2001:db8::/64')).toMatch(/^p:wr:\{show:7\}:addr:2001:db8::\/64$/);
    // Anything else is digested: no braces or unbounded text ever reach a key name.
    expect(keys.address('{evil}')).toMatch(/:addr:~[0-9a-f]+$/);
    expect(Object.isFrozen(keys.room)).toBe(true);
    expect(builder.forShowtime('8').cfg).toBe('p:wr:{show:8}:cfg');
  });
});
