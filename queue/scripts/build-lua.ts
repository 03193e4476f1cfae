/** Writes queue/src/scripts.gen.ts from queue/lua/*.lua (`npx tsx queue/scripts/build-lua.ts`). */
import { writeFileSync } from 'node:fs';
import { bundleScripts, generatedPath, renderScriptsModule } from './lua-bundle';

const scripts = bundleScripts();
writeFileSync(generatedPath, renderScriptsModule(scripts));
console.log(`wrote ${generatedPath}: ${scripts.map((s) => `${s.name}-${s.numberOfKeys}`).join(', ')}`);
