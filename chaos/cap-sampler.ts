/**
 * Samples, through a whole fault run, how many buyers of the showtime hold an admission at
 * once, from both places that know: Redis's `active` set (live sessions, score = expiry) and
 * the core's turn ledger (admission_turn, by the database clock). Redis alone cannot see a live
 * turn it forgot (a restart without persistence); the ledger alone would miss admissions Redis
 * granted that never reached the core. Reads that fail (the component is down) are skipped and
 * not counted, so a sampler that never read anything says so (the cap check then cannot run).
 */
import type { Redis } from 'ioredis';
import type { Sql } from 'postgres';
import { createKeyBuilder } from '../queue/src/keys';
import { liveTurnsInLedger, type CapSamples } from './checks/room';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function sampler(read: () => Promise<number>, everyMs: number) {
  let running = true;
  const samples: CapSamples = { highest: 0, reads: 0 };
  const loop = (async () => {
    while (running) {
      try {
        const live = await read();
        samples.highest = Math.max(samples.highest, live);
        samples.reads++;
      } catch {
        // down or restarting: nothing read, nothing counted
      }
      await sleep(everyMs);
    }
  })();
  return { stop: async () => ((running = false), await loop, samples) };
}

export function capSamplers(deps: { redis: Redis; sql: Sql; showtimeId: string; keyPrefix?: string }) {
  const activeKey = createKeyBuilder(deps.keyPrefix ?? '').forShowtime(deps.showtimeId).active;
  // Redis every 25 ms (a read is cheap); the ledger every 100 ms, a query on the observer's pool.
  const redis = sampler(() => deps.redis.zcount(activeKey, Date.now(), '+inf'), 25);
  const ledger = sampler(() => liveTurnsInLedger(deps.sql, Number(deps.showtimeId)), 100);
  return {
    async stop(): Promise<{ redis: CapSamples; ledger: CapSamples }> {
      return { redis: await redis.stop(), ledger: await ledger.stop() };
    },
  };
}
