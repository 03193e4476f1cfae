/**
 * ScriptStore over ioredis, for a single Redis (`new Redis(url)`) or a Redis Cluster
 * (`new Cluster(nodes)`): one showtime's keys share a hash tag, so every script call lands
 * on the node that owns the showtime's slot.
 */
import type { ScriptStore } from './store';

type Arg = string | number;

/** The three ioredis methods the room uses; both `Redis` and `Cluster` fit. */
export interface IoredisScriptClient {
  evalsha(sha1: string, numberOfKeys: number, ...keysAndArgs: Arg[]): Promise<unknown>;
  eval(script: string, numberOfKeys: number, ...keysAndArgs: Arg[]): Promise<unknown>;
  script(subcommand: 'LOAD', script: string): Promise<unknown>;
}

export function createIoredisStore(client: IoredisScriptClient): ScriptStore {
  return {
    evalsha: (sha1, keys, args) => client.evalsha(sha1, keys.length, ...keys, ...args),
    eval: (source, keys, args) => client.eval(source, keys.length, ...keys, ...args),
    scriptLoad: async (source) => String(await client.script('LOAD', source)),
  };
}
