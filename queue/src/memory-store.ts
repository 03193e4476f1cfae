/**
 * The in-process store for the embedded default (`npm start` without REDIS_URL): the same
 * ScriptStore port, with each script's TypeScript twin (memory/scripts.ts) in place of Lua.
 * It passes the same contract suite as Redis. One process only: nothing is shared or kept.
 */
import { MiniRedis } from './memory/mini-redis';
import { memoryScripts } from './memory/scripts';
import { scripts, type ScriptName } from './scripts.gen';
import type { ScriptStore } from './store';

export function createMemoryStore(options: { clock?: () => number } = {}): ScriptStore {
  const db = new MiniRedis(options.clock);
  const bySha = new Map<string, ScriptName>(
    Object.entries(scripts).map(([name, script]) => [script.sha1, name as ScriptName]),
  );
  const bySource = new Map<string, ScriptName>(
    Object.entries(scripts).map(([name, script]) => [script.source, name as ScriptName]),
  );

  const run = (name: ScriptName | undefined, keys: string[], args: string[]) => {
    if (!name) throw new Error('NOSCRIPT No matching script (the in-process store knows only queue/lua scripts)');
    return Promise.resolve(memoryScripts[name](db, keys, args));
  };

  return {
    evalsha: async (sha1, keys, args) => run(bySha.get(sha1), keys, args),
    eval: async (source, keys, args) => run(bySource.get(source), keys, args),
    async scriptLoad(source) {
      const name = bySource.get(source);
      if (!name) throw new Error('ERR the in-process store runs only the queue/lua scripts');
      return scripts[name].sha1;
    },
  };
}
