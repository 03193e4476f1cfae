import type { ScriptStore } from './store';
export function createMemoryStore(): ScriptStore {
  throw new Error('not yet');
}
