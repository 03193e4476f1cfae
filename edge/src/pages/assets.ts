/**
 * Static assets, served from modules (the edge also runs on Workers: no filesystem). The
 * browser code is TypeScript under edge/client/, bundled by esbuild into
 * client-bundle.gen.ts; the stylesheet is a string module. Each asset's URL carries a hash
 * of its content (`/assets/buyer.3f2a…js`), so browsers keep it for a year and a new page
 * never runs an old script.
 */
import { clientBundles } from './client-bundle.gen';
import { styles } from './styles';

const JS = 'text/javascript; charset=utf-8';

/** FNV-1a, 32 bits: a content fingerprint for cache busting, not a security hash. */
function fingerprint(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(36);
}

const SOURCES = {
  'styles.css': { body: styles, type: 'text/css; charset=utf-8', hash: fingerprint(styles) },
  'buyer.js': { body: clientBundles['buyer.js'].code, type: JS, hash: clientBundles['buyer.js'].hash },
  'operator.js': { body: clientBundles['operator.js'].code, type: JS, hash: clientBundles['operator.js'].hash },
  // The waiting page's proof-of-work solver, started as a Web Worker from its plain name.
  'pow-worker.js': { body: clientBundles['pow-worker.js'].code, type: JS, hash: clientBundles['pow-worker.js'].hash },
} as const;

export type AssetName = keyof typeof SOURCES;

/** "buyer.js" → "buyer.<hash>.js". */
const hashedName = (name: AssetName) => name.replace(/\.(js|css)$/, `.${SOURCES[name].hash}.$1`);

const BY_HASHED_NAME = new Map(Object.keys(SOURCES).map((name) => [hashedName(name as AssetName), name as AssetName]));

export const assetUrl = (name: AssetName) => `/assets/${hashedName(name)}`;

export interface FoundAsset {
  body: string;
  type: string;
  /** The name carried the current hash: the content behind it never changes. */
  immutable: boolean;
}

/** By hashed name (cache for a year) or by plain name (an old link: revalidate each time). */
export function findAsset(name: string): FoundAsset | null {
  const hashed = BY_HASHED_NAME.get(name);
  if (hashed) return { body: SOURCES[hashed].body, type: SOURCES[hashed].type, immutable: true };
  if (!Object.hasOwn(SOURCES, name)) return null;
  const asset = SOURCES[name as AssetName];
  return { body: asset.body, type: asset.type, immutable: false };
}
