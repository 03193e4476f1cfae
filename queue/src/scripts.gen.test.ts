import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bundleScripts, generatedPath, renderScriptsModule } from '../scripts/lua-bundle';
import { scripts } from './scripts.gen';

describe('generated scripts module', () => {
  it('is up to date with queue/lua (run `npx tsx queue/scripts/build-lua.ts` if not)', () => {
    expect(readFileSync(generatedPath, 'utf8')).toBe(renderScriptsModule());
  });

  it('declares the key count in the file name and uses KEYS only up to it', () => {
    for (const bundled of bundleScripts()) {
      const used = [...bundled.source.matchAll(/KEYS\[(\d+)\]/g)].map((m) => Number(m[1]));
      expect(Math.max(0, ...used), bundled.name).toBeLessThanOrEqual(bundled.numberOfKeys);
      expect(bundled.source, bundled.name).toMatch(/KEYS:[\s\S]*ARGV:[\s\S]*Returns:/);
    }
  });

  it('never builds key names inside Lua', () => {
    for (const script of Object.values(scripts)) {
      expect(script.source, script.name).not.toMatch(/\.\.\s*['"]:|['"]:['"]\s*\.\./);
      expect(script.source, script.name).not.toMatch(/\{show:/);
    }
  });
});
