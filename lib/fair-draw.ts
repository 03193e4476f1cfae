/**
 * The pre-queue draw, commit-reveal style: a random seed is stored when the room is first
 * configured and only its SHA-256 is published; at opening the pre-queue is shuffled with
 * it and the seed is revealed, so anyone can recompute the order and check the hash.
 *
 * Web Crypto only (Node 20 and Workers both have `crypto.subtle`).
 */

const toHex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

function fromHex(hex: string): Uint8Array<ArrayBuffer> {
  if (!/^(?:[0-9a-f]{2})+$/.test(hex)) throw new RangeError('seed must be lowercase hex');
  return Uint8Array.from(hex.match(/../g)!, (pair) => parseInt(pair, 16));
}

export function newSeed(): string {
  return toHex(crypto.getRandomValues(new Uint8Array(32)));
}

export async function seedCommitment(seedHex: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', fromHex(seedHex));
  return toHex(new Uint8Array(digest));
}

/** 32-bit words from SHA-256(seed ‖ counter), counter big-endian from 0. */
function wordStream(seed: Uint8Array<ArrayBuffer>) {
  let counter = 0;
  let words: number[] = [];
  return async function nextWord(): Promise<number> {
    if (words.length === 0) {
      const block = new Uint8Array(seed.length + 4);
      block.set(seed);
      new DataView(block.buffer).setUint32(seed.length, counter++);
      const digest = new DataView(await crypto.subtle.digest('SHA-256', block));
      words = Array.from({ length: 8 }, (_, i) => digest.getUint32(i * 4));
    }
    return words.shift()!;
  };
}

/**
 * The drawn order: participants sorted by id (byte order, as Redis sorts the pre-queue),
 * then Fisher-Yates from the last index down with unbiased draws (rejection sampling).
 */
export async function drawOrder(seedHex: string, customerIds: readonly string[]): Promise<string[]> {
  const order = [...customerIds].sort();
  const nextWord = wordStream(fromHex(seedHex));
  for (let i = order.length - 1; i > 0; i--) {
    const range = i + 1;
    const limit = Math.floor(0x1_0000_0000 / range) * range;
    let word = await nextWord();
    while (word >= limit) word = await nextWord();
    const j = word % range;
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

/** What a participant can check after the reveal. */
export async function verifyDraw(
  draw: { seedHash: string; seed: string },
  participants: readonly string[],
  publishedOrder: readonly string[],
): Promise<boolean> {
  if ((await seedCommitment(draw.seed)) !== draw.seedHash) return false;
  const order = await drawOrder(draw.seed, participants);
  return order.length === publishedOrder.length && order.every((id, i) => id === publishedOrder[i]);
}
