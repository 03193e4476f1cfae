/**
 * The narrow port the waiting room needs from a store: run a Lua script by SHA1, run it by
 * source, load it. Three adapters implement it: ioredis (Node), @upstash/redis (Workers)
 * and an in-process store for the embedded default.
 */
import type { LuaScript } from './script-types';

export interface ScriptStore {
  evalsha(sha1: string, keys: string[], args: string[]): Promise<unknown>;
  eval(source: string, keys: string[], args: string[]): Promise<unknown>;
  scriptLoad(source: string): Promise<string>;
}

/** A Redis restart, a failover or SCRIPT FLUSH empties the script cache: NOSCRIPT. */
export function isNoScriptError(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return message.includes('NOSCRIPT');
}

/**
 * EVALSHA first (one small request), EVAL on NOSCRIPT, which also puts the script back in
 * that server's cache. Scripts are idempotent to load, so racing reloads are harmless.
 */
export async function runScript(
  store: ScriptStore,
  script: LuaScript,
  keys: string[],
  args: (string | number)[] = [],
): Promise<unknown[]> {
  if (keys.length !== script.numberOfKeys) {
    throw new RangeError(`${script.name} takes ${script.numberOfKeys} keys, got ${keys.length}`);
  }
  const argv = args.map(String);
  let reply: unknown;
  try {
    reply = await store.evalsha(script.sha1, keys, argv);
  } catch (error) {
    if (!isNoScriptError(error)) throw error;
    reply = await store.eval(script.source, keys, argv);
  }
  if (!Array.isArray(reply)) throw new TypeError(`${script.name} returned ${typeof reply}, expected an array`);
  return reply;
}
