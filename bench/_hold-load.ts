/**
 * Load generator for bench/holds.ts, run as a child process so it does not share an event loop
 * with the server it measures. Each client loops: hold one random seat of its own share of the
 * hall (seat index ≡ client number mod clients, exactly as the pgbench script picks), cancel it.
 * With `bestCount`, each hold is best available instead ({count, together: true}: the core picks).
 * Prints JSON.
 */
import { bearerClient } from './lib/bearer-client';

const { url, showtimeId, tokens, seats, seconds, bestCount } = JSON.parse(process.argv[2]!) as {
  url: string;
  showtimeId: number;
  tokens: string[];
  seats: string[];
  seconds: number;
  bestCount?: number;
};
const { request, close } = bearerClient(url, tokens.length);

const deadline = Date.now() + seconds * 1000;
const statuses: Record<string, number> = {};
let holds = 0;
await Promise.all(
  tokens.map(async (token, client) => {
    const mine = seats.filter((_, index) => index % tokens.length === client);
    while (Date.now() < deadline) {
      const seat = mine[Math.floor(Math.random() * mine.length)]!;
      const body = bestCount ? { count: bestCount, together: true } : { seats: [seat] };
      const held = await request('POST', `/showtimes/${showtimeId}/holds`, token, JSON.stringify(body));
      statuses[held.status] = (statuses[held.status] ?? 0) + 1;
      if (held.status !== 201) continue;
      holds++;
      const { holdId } = JSON.parse(held.body) as { holdId: string };
      await request('DELETE', `/holds/${holdId}`, token);
    }
  }),
);
console.log(JSON.stringify({ holds, statuses, seconds }));
close();
