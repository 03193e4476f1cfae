import { describe, expect, it } from 'vitest';
import { createQueueIds, deriveQueueIdSecret, formatQueueId, MAX_QUEUE_TICKET, parseQueueId } from './queue-ids';

const secret = new Uint8Array(32).fill(7);

describe('queue ids', () => {
  it('are 8 characters in two groups, and read back leniently', () => {
    expect(formatQueueId(0)).toBe('0000-0000');
    expect(formatQueueId(2 ** 40 - 1)).toBe('ZZZZ-ZZZZ');
    expect(parseQueueId('zzzz zzzz')).toBe(2 ** 40 - 1);
    expect(parseQueueId('OOOO-OOOI')).toBe(1); // O read as 0, I as 1
    expect(parseQueueId(formatQueueId(123_456_789))).toBe(123_456_789);
    for (const junk of ['', 'ABCD-EFG', 'ABCD-EFGHJ', 'ABCD-EFG!', 'UUUU-UUUU']) expect(parseQueueId(junk)).toBeNull();
  });

  it('turn back into their ticket with the key, and every ticket has its own id', async () => {
    const ids = createQueueIds(secret);
    const seen = new Set<string>();
    for (let ticket = 1; ticket <= 2_000; ticket++) {
      const id = await ids.idOf('42', ticket);
      expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
      seen.add(id);
      expect(await ids.ticketOf('42', id.toLowerCase())).toBe(ticket);
    }
    expect(seen.size).toBe(2_000);
    expect(await ids.ticketOf('42', 'not an id')).toBeNull();
    expect(await ids.ticketOf('42', await ids.idOf('42', MAX_QUEUE_TICKET))).toBe(MAX_QUEUE_TICKET);
  });

  it('refuse a mistyped id instead of naming another buyer (a keyed check)', async () => {
    const ids = createQueueIds(secret);
    const id = (await ids.idOf('42', 77)).replace('-', '');
    const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
    let accepted = 0;
    let variants = 0;
    for (let i = 0; i < id.length; i++) {
      for (const char of alphabet) {
        if (char === id[i]) continue;
        variants++;
        if ((await ids.ticketOf('42', id.slice(0, i) + char + id.slice(i + 1))) !== null) accepted++;
      }
    }
    expect(variants).toBe(248);
    expect(accepted).toBeLessThan(8); // 1 in 256 expected
  });

  it('say nothing about the order or another showtime, and differ under another key', async () => {
    const ids = createQueueIds(secret);
    const other = createQueueIds(new Uint8Array(32).fill(8));
    const consecutive = await Promise.all([1, 2, 3, 4].map((t) => ids.idOf('42', t)));
    // Neighbouring tickets share no leading group, and the ids are not in ticket order.
    expect(new Set(consecutive.map((id) => id.slice(0, 4))).size).toBe(4);
    expect([...consecutive].sort()).not.toEqual(consecutive);
    expect(await ids.idOf('43', 1)).not.toBe(consecutive[0]);
    expect(await other.idOf('42', 1)).not.toBe(consecutive[0]);
    // An id from one showtime does not decode to the same ticket in another.
    expect(await ids.ticketOf('43', consecutive[0]!)).not.toBe(1);
  });

  it('are remembered for the synchronous answers, and refused for tickets that are not places', async () => {
    const ids = createQueueIds(deriveQueueIdSecret(secret));
    expect(ids.peek('42', 5)).toBeUndefined();
    const id = await ids.idOf('42', 5);
    expect(ids.peek('42', 5)).toBe(id);
    await expect(ids.idOf('42', 0)).rejects.toThrow(RangeError);
    await expect(ids.idOf('42', MAX_QUEUE_TICKET + 1)).rejects.toThrow(RangeError);
  });
});
