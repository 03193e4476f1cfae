/**
 * Load generator for bench/best.ts (a child process, so it does not share an event loop with
 * the core it measures). Every buyer wants `count` seats together and stops at its first hold:
 *
 * - pick: the page's way. Read the seat map, choose a block (most buyers the best free block by
 *   the same score the core uses, ties broken at random among the three best; the rest any free
 *   block), POST it; on 409 read the map again and choose again, as the page does after a conflict.
 * - best: POST {count, together: true}; on 409 NO_SEATS_TOGETHER, give up (nothing together left).
 *
 * Prints JSON: per buyer the time to its hold (ms, null when none) and its conflicts.
 */
import { bearerClient } from './lib/bearer-client';

interface Seat {
  code: string;
  row: number;
  column: number;
  type: string;
  status: string;
}
const { url, showtimeId, tokens, count, seconds, mode, centreShare } = JSON.parse(process.argv[2]!) as {
  url: string;
  showtimeId: number;
  tokens: string[];
  count: number;
  seconds: number;
  mode: 'pick' | 'best';
  centreShare: number;
};
const { request, close } = bearerClient(url, 64);

/** Free standard blocks of `count` in one row, best first (2·|row − ideal| + distance from the row's centre). */
function blocks(seats: Seat[]): string[][] {
  const idealRow = Math.ceil((Math.max(...seats.map((s) => s.row)) * 2) / 3);
  const byRow = new Map<number, Seat[]>();
  for (const seat of seats) byRow.set(seat.row, [...(byRow.get(seat.row) ?? []), seat]);
  const found: { codes: string[]; score: number }[] = [];
  for (const [row, rowSeats] of byRow) {
    rowSeats.sort((a, b) => a.column - b.column);
    const centre = (rowSeats[0]!.column + rowSeats[rowSeats.length - 1]!.column) / 2;
    for (let i = 0; i + count <= rowSeats.length; i++) {
      const block = rowSeats.slice(i, i + count);
      if (block.some((s, k) => s.status !== 'AVAILABLE' || s.type !== 'standard' || s.column !== block[0]!.column + k))
        continue;
      found.push({
        codes: block.map((s) => s.code),
        score: 2 * Math.abs(row - idealRow) + Math.abs(block[0]!.column + (count - 1) / 2 - centre),
      });
    }
  }
  return found.sort((a, b) => a.score - b.score).map((b) => b.codes);
}

const started = Date.now();
const deadline = started + seconds * 1000;
const results = await Promise.all(
  tokens.map(async (token, buyer) => {
    let conflicts = 0;
    const aimsAtCentre = buyer < tokens.length * centreShare;
    while (Date.now() < deadline) {
      let body: string;
      if (mode === 'best') {
        body = JSON.stringify({ count, together: true });
      } else {
        const map = await request('GET', `/showtimes/${showtimeId}/seats`, token);
        const choices = blocks((JSON.parse(map.body) as { seats: Seat[] }).seats);
        if (choices.length === 0) break;
        const pick = aimsAtCentre
          ? choices[Math.floor(Math.random() * Math.min(3, choices.length))]!
          : choices[Math.floor(Math.random() * choices.length)]!;
        body = JSON.stringify({ seats: pick });
      }
      const held = await request('POST', `/showtimes/${showtimeId}/holds`, token, body);
      if (held.status === 201) return { ms: Date.now() - started, conflicts };
      if (held.status === 409) {
        conflicts++;
        if (mode === 'best') break;
        continue;
      }
      if (held.status >= 500 || held.status === 429) continue;
      throw new Error(`unexpected ${held.status}: ${held.body}`);
    }
    return { ms: null, conflicts };
  }),
);
console.log(JSON.stringify({ results }));
close();
