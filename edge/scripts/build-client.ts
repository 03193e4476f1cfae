/** Writes edge/src/pages/client-bundle.gen.ts from edge/client/ (`npm run build:client`). */
import { readFileSync, writeFileSync } from 'node:fs';
import { bundleClient, generatedPath, renderBundleModule } from './client-bundle';

const bundles = await bundleClient();
const text = renderBundleModule(bundles);
let before = '';
try {
  before = readFileSync(generatedPath, 'utf8');
} catch {
  before = '';
}
if (before !== text) writeFileSync(generatedPath, text);
console.log(
  `${before === text ? 'unchanged' : 'wrote'} ${generatedPath}: ${bundles.map((b) => `${b.name} ${(b.code.length / 1024).toFixed(1)} KB`).join(', ')}`,
);
