/**
 * Static assets as TS string modules (the edge also runs on Workers: no filesystem), served
 * at /assets/<name>?v=<hash>. The hash in the URL changes with the content, so browsers may
 * keep them for a day without ever running an old script against a new page.
 */
import { commonScript } from './common-script';
import { confirmScript } from './confirm-script';
import { consoleChartsScript } from './console-charts-script';
import { consoleScript } from './console-script';
import { saleScript } from './sale-script';
import { seatsScript } from './seats-script';
import { styles } from './styles';

const JS = 'text/javascript; charset=utf-8';

const SOURCES = {
  'styles.css': { body: styles, type: 'text/css; charset=utf-8' },
  'common.js': { body: commonScript, type: JS },
  'sale.js': { body: saleScript, type: JS },
  'seats.js': { body: seatsScript, type: JS },
  'confirm.js': { body: confirmScript, type: JS },
  'console.js': { body: consoleScript, type: JS },
  'console-charts.js': { body: consoleChartsScript, type: JS },
} as const;

export type AssetName = keyof typeof SOURCES;

/** FNV-1a, 32 bits: a content fingerprint for cache busting, not a security hash. */
function fingerprint(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(36);
}

const VERSIONS = Object.fromEntries(Object.entries(SOURCES).map(([name, asset]) => [name, fingerprint(asset.body)])) as Record<AssetName, string>;

export const assetUrl = (name: AssetName) => `/assets/${name}?v=${VERSIONS[name]}`;

export function findAsset(name: string): { body: string; type: string; version: string } | null {
  if (!Object.hasOwn(SOURCES, name)) return null;
  const asset = SOURCES[name as AssetName];
  return { body: asset.body, type: asset.type, version: VERSIONS[name as AssetName] };
}
