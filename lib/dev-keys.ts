import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { JWK } from 'jose';
import { generateSigningJwk } from './token-keys';

/**
 * Development key material shared by the services on one machine: generated on first use into
 * `.data/dev-keys.json` (git-ignored), so an edge and a core started separately agree without
 * configuration. Production sets TOKEN_SIGNING_KEY / TOKEN_PUBLIC_JWKS instead.
 */
export async function loadOrCreateDevSigningJwk(dataDir = path.resolve('.data')): Promise<JWK> {
  const file = path.join(dataDir, 'dev-keys.json');
  try {
    return JSON.parse(await readFile(file, 'utf8')) as JWK;
  } catch {
    const jwk = await generateSigningJwk('dev-1');
    await mkdir(dataDir, { recursive: true });
    await writeFile(file, JSON.stringify(jwk), { mode: 0o600, flag: 'wx' }).catch(() => {});
    // Another process may have won the race to create it: read whatever landed.
    return JSON.parse(await readFile(file, 'utf8')) as JWK;
  }
}
