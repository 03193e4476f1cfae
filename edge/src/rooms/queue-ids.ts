/**
 * Short queue ids a buyer can read out to support ("K7QM-2XPD"): the ticket of a place in
 * line, enciphered with a key only the edges hold, so an id says nothing (not the arrival
 * order, not how many joined) and nobody can work out another buyer's id from their own.
 * Support turns an id back into its ticket with the same key (the operator lookup).
 *
 * The cipher is a balanced Feistel network over 32 bits (two 16-bit halves, eight rounds),
 * so it is a keyed permutation: every ticket has its own id, no two share one. Its round
 * functions are tables of pseudo-random values drawn once per showtime from AES-CTR under a
 * key derived for that showtime (one WebCrypto call, 1 MB), which makes enciphering a few
 * table reads: synchronous and cheap enough for every poll, on Node and Workers alike. Eight
 * more keyed bits make a check, so a mistyped id is refused instead of naming someone else.
 */

const HALF_BITS = 16;
const HALF_SIZE = 1 << HALF_BITS;
const ROUNDS = 8;
/** The largest ticket an id can carry. */
export const MAX_QUEUE_TICKET = 2 ** 32 - 1;
/** Crockford's base32: no I, L, O or U, so an id read aloud or typed is not misread. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** Showtimes whose tables one process keeps (1 MB each). */
const SHOWTIMES_KEPT = 32;

const encoder = new TextEncoder();

const CHARS = [...ALPHABET];
/** Four characters of 20 bits. */
const group = (bits: number) =>
  CHARS[(bits >>> 15) & 31]! + CHARS[(bits >>> 10) & 31]! + CHARS[(bits >>> 5) & 31]! + CHARS[bits & 31]!;

/** 40 bits as the buyer sees them: 8 characters in two groups of four (bit arithmetic: this runs on every poll). */
export function formatQueueId(value: number): string {
  return `${group(Math.floor(value / 0x100000))}-${group(value % 0x100000)}`;
}

/** What a person typed, read leniently (case, spaces, dashes, O for 0, I and L for 1); null if it cannot be an id. */
export function parseQueueId(input: string): number | null {
  const text = input.toUpperCase().replace(/[\s-]/g, '').replace(/O/g, '0').replace(/[IL]/g, '1');
  if (!/^[0-9A-HJKMNP-TV-Z]{8}$/.test(text)) return null;
  let value = 0;
  for (const char of text) value = value * 32 + ALPHABET.indexOf(char);
  return value;
}

interface Tables {
  rounds: Uint16Array[];
  check: Uint8Array;
  /**
   * Ids already worked out, by ticket: a buyer polls every few seconds with the same ticket,
   * and eight reads scattered over 1 MB of tables cost more than one small map lookup.
   */
  ids: Map<number, string>;
}

/** Ids remembered per showtime before the memo starts over (a few MB at most). */
const IDS_KEPT = 100_000;

function encipher(t: Tables, ticket: number): number {
  let left = ticket >>> HALF_BITS;
  let right = ticket & (HALF_SIZE - 1);
  for (let i = 0; i < ROUNDS; i++) {
    const next = left ^ t.rounds[i]![right]!;
    left = right;
    right = next;
  }
  const value = ((left << HALF_BITS) | right) >>> 0;
  return value * 256 + t.check[(left ^ right) & (HALF_SIZE - 1)]!;
}

function decipher(t: Tables, id: number): number | null {
  const value = Math.floor(id / 256);
  let left = value >>> HALF_BITS;
  let right = value & (HALF_SIZE - 1);
  if (t.check[left ^ right] !== id % 256) return null;
  for (let i = ROUNDS - 1; i >= 0; i--) [left, right] = [right ^ t.rounds[i]![left]!, left];
  return ((left << HALF_BITS) | right) >>> 0;
}

export interface QueueIds {
  /** The id of a ticket in a showtime. */
  idOf(showtimeId: string, ticket: number): Promise<string>;
  /** The id at once when this process already has the showtime's tables, else undefined. */
  peek(showtimeId: string, ticket: number): string | undefined;
  /** The ticket an id stands for, or null when the text is not an id of this showtime. */
  ticketOf(showtimeId: string, queueId: string): Promise<number | null>;
}

/** `secret`: key bytes every edge process shares (see deriveQueueIdSecret). */
export function createQueueIds(secret: Uint8Array | Promise<Uint8Array>): QueueIds {
  const master = Promise.resolve(secret).then((bytes) =>
    crypto.subtle.importKey('raw', bytes as Uint8Array<ArrayBuffer>, 'HKDF', false, ['deriveKey']),
  );
  const loaded = new Map<string, Tables>();
  const loading = new Map<string, Promise<Tables>>();

  async function build(showtimeId: string): Promise<Tables> {
    const key = await crypto.subtle.deriveKey(
      {
        name: 'HKDF',
        hash: 'SHA-256',
        salt: encoder.encode('wr-queue-id/v1'),
        info: encoder.encode(`showtime:${showtimeId}`),
      },
      await master,
      { name: 'AES-CTR', length: 128 },
      false,
      ['encrypt'],
    );
    const size = ROUNDS * HALF_SIZE * 2 + HALF_SIZE;
    const stream = await crypto.subtle.encrypt(
      { name: 'AES-CTR', counter: new Uint8Array(16), length: 64 },
      key,
      new Uint8Array(size),
    );
    const rounds = Array.from({ length: ROUNDS }, (_, i) => new Uint16Array(stream, i * HALF_SIZE * 2, HALF_SIZE));
    return { rounds, check: new Uint8Array(stream, ROUNDS * HALF_SIZE * 2, HALF_SIZE), ids: new Map() };
  }

  function tablesOf(showtimeId: string): Promise<Tables> {
    const ready = loaded.get(showtimeId);
    if (ready) return Promise.resolve(ready);
    let running = loading.get(showtimeId);
    if (!running) {
      running = build(showtimeId)
        .then((tables) => {
          if (loaded.size >= SHOWTIMES_KEPT) loaded.delete(loaded.keys().next().value!);
          loaded.set(showtimeId, tables);
          return tables;
        })
        .finally(() => loading.delete(showtimeId));
      loading.set(showtimeId, running);
    }
    return running;
  }

  const checkTicket = (ticket: number) => {
    if (!Number.isSafeInteger(ticket) || ticket < 1 || ticket > MAX_QUEUE_TICKET)
      throw new RangeError(`no queue id for ticket ${ticket}`);
  };

  return {
    async idOf(showtimeId, ticket) {
      checkTicket(ticket);
      return formatQueueId(encipher(await tablesOf(showtimeId), ticket));
    },
    peek(showtimeId, ticket) {
      const tables = loaded.get(showtimeId);
      if (!tables) return undefined;
      const known = tables.ids.get(ticket);
      if (known !== undefined) return known;
      checkTicket(ticket);
      const id = formatQueueId(encipher(tables, ticket));
      if (tables.ids.size >= IDS_KEPT) tables.ids.clear();
      tables.ids.set(ticket, id);
      return id;
    },
    async ticketOf(showtimeId, queueId) {
      const value = parseQueueId(queueId);
      if (value === null) return null;
      const ticket = decipher(await tablesOf(showtimeId), value);
      return ticket !== null && ticket >= 1 ? ticket : null;
    },
  };
}

/** The queue-id key: HKDF of the queue-token key, so no new secret needs distributing. */
export async function deriveQueueIdSecret(queueTokenKey: Uint8Array): Promise<Uint8Array> {
  const material = await crypto.subtle.importKey('raw', queueTokenKey as Uint8Array<ArrayBuffer>, 'HKDF', false, [
    'deriveBits',
  ]);
  const bits = await crypto.subtle.deriveBits(
    { name: 'HKDF', hash: 'SHA-256', salt: encoder.encode('wr-queue-id/v1'), info: encoder.encode('queue-id') },
    material,
    256,
  );
  return new Uint8Array(bits);
}
