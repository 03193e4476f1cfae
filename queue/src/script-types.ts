/** A Lua script as compiled into scripts.gen.ts: nothing is read from disk at run time. */
export interface LuaScript {
  readonly name: string;
  readonly numberOfKeys: number;
  readonly sha1: string;
  readonly source: string;
}
