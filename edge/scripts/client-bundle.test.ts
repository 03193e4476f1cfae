import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bundleClient, generatedPath, renderBundleModule } from './client-bundle';

describe('generated client bundle module', () => {
  it('is up to date with edge/client (run `npm run build:client` if not)', async () => {
    expect(readFileSync(generatedPath, 'utf8')).toBe(renderBundleModule(await bundleClient()));
  });

  it('is minified browser code without TypeScript or module syntax left in it', async () => {
    for (const bundle of await bundleClient()) {
      expect(bundle.code.split('\n').length, bundle.name).toBeLessThan(5);
      expect(bundle.code, bundle.name).not.toMatch(/^\s*(import|export)\s/m);
      expect(bundle.hash, bundle.name).toMatch(/^[0-9a-f]{12}$/);
    }
  });
});
