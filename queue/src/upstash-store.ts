/**
 * ScriptStore over @upstash/redis (HTTP), the Workers adapter. No Node APIs here: scripts
 * come compiled into scripts.gen.ts.
 *
 * Construct the client with `automaticDeserialization: false`: otherwise it JSON-parses
 * every string in a reply and a customer id such as "1e3" would come back as the number 1000.
 */
import type { Redis } from '@upstash/redis';
import type { ScriptStore } from './store';

export type UpstashScriptClient = Pick<Redis, 'evalsha' | 'eval' | 'scriptLoad'>;

export function createUpstashStore(client: UpstashScriptClient): ScriptStore {
  return {
    evalsha: (sha1, keys, args) => client.evalsha(sha1, keys, args),
    eval: (source, keys, args) => client.eval(source, keys, args),
    scriptLoad: async (source) => String(await client.scriptLoad(source)),
  };
}
