import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bundleClient, generatedPath, renderBundleModule } from './client-bundle';

describe('generated client bundle module', () => {
  it('is up to date with edge/client (run `npm run build:client` if not)', async () => {
    expect(readFileSync(generatedPath, 'utf8')).toBe(renderBundleModule(await bundleClient()));
  });

  it('is minified browser code without TypeScript or module syntax left in it', async () => {
    for (const bundle of await bundleClient()) {
      // Minified: no source comments survive, and the source's long names are gone.
      expect(bundle.code, bundle.name).not.toContain('/**');
      expect(bundle.code, bundle.name).not.toMatch(/\bfunction createSaleFlow\b|\bfunction createEtaSmoother\b/);
      expect(bundle.code, bundle.name).not.toMatch(/^\s*(import|export)\s/m);
      expect(bundle.hash, bundle.name).toMatch(/^[0-9a-f]{12}$/);
    }
  });
});
