/** Writes edge/src/openapi/openapi.gen.ts from the API description (`npm run build:openapi`). */
import { readFileSync, writeFileSync } from 'node:fs';
import { generatedPath, renderOpenApiModule } from './openapi/openapi-module';

const text = renderOpenApiModule();
let before = '';
try {
  before = readFileSync(generatedPath, 'utf8');
} catch {
  before = '';
}
if (before !== text) writeFileSync(generatedPath, text);
console.log(`${before === text ? 'unchanged' : 'wrote'} ${generatedPath} (${(text.length / 1024).toFixed(1)} KB)`);
