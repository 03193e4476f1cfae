/**
 * How the pages and their bundled scripts travel, on the full stack (no browser needed):
 * gzip when the client accepts it (and only then), content-hashed asset names cached for a
 * year, old unhashed names revalidated, and the strict CSP on every page.
 */
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserStack, type BrowserStack } from './browser-stack';

let stack: BrowserStack;
beforeAll(async () => {
  stack = await startBrowserStack();
});
afterAll(() => stack?.close());

/** node:http, not fetch: fetch would undo the gzip and hide what went over the wire. */
function get(
  path: string,
  gzip: boolean | string,
): Promise<{
  status: number;
  headers: Record<string, string | string[] | undefined>;
  encoding: string | null;
  wireBytes: number;
  text: string;
}> {
  const accept = typeof gzip === 'string' ? gzip : gzip ? 'gzip' : 'identity';
  return new Promise((resolve, reject) => {
    const req = request(`${stack.edgeUrl}${path}`, { headers: { 'accept-encoding': accept } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const raw = Buffer.concat(chunks);
        const encoding = (response.headers['content-encoding'] as string | undefined) ?? null;
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          encoding,
          wireBytes: raw.length,
          text: (encoding === 'gzip' ? gunzipSync(raw) : encoding === 'br' ? brotliDecompressSync(raw) : raw).toString(
            'utf8',
          ),
        });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('pages and assets on the wire', () => {
  it('compresses the sale page, its script and its stylesheet for clients that accept gzip, and only for them', async () => {
    const showtimeId = await stack.createShowtime({ title: 'Wire Check' });
    const plain = await get(`/showtimes/${showtimeId}`, false);
    const zipped = await get(`/showtimes/${showtimeId}`, true);
    expect(plain.encoding).toBeNull();
    expect(zipped.encoding).toBe('gzip');
    expect(zipped.text).toBe(plain.text.replace(/data-view="[^"]+"/, zipped.text.match(/data-view="[^"]+"/)![0]));
    expect(zipped.headers['content-security-policy']).toContain("script-src 'self'");
    expect(zipped.text).not.toMatch(/<script>|<script [^>]*>[^<]/); // no inline script

    const urls = [...plain.text.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(urls).toEqual([
      expect.stringMatching(/^\/assets\/styles\.[a-z0-9]+\.css$/),
      expect.stringMatching(/^\/assets\/buyer\.[0-9a-f]{12}\.js$/),
    ]);
    let plainTotal = plain.wireBytes;
    let zippedTotal = zipped.wireBytes;
    for (const url of urls) {
      const asset = await get(url, true);
      const identity = await get(url, false);
      expect(asset.encoding).toBe('gzip');
      expect(asset.text).toBe(identity.text);
      expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(asset.headers['x-content-type-options']).toBe('nosniff');
      plainTotal += identity.wireBytes;
      zippedTotal += asset.wireBytes;
    }
    // HTML, CSS and script together shrink to well under half.
    expect(zippedTotal).toBeLessThan(plainTotal * 0.45);
    console.log(`sale page + assets: ${plainTotal} bytes plain, ${zippedTotal} gzip`);
  });

  it('sends brotli to a client that accepts it (smaller than gzip), and gzip when br is refused', async () => {
    const showtimeId = await stack.createShowtime({ title: 'Brotli Check' });
    const browserLike = await get(`/showtimes/${showtimeId}`, 'gzip, deflate, br');
    expect(browserLike.encoding).toBe('br');
    expect(browserLike.headers.vary).toMatch(/Accept-Encoding/);
    expect(browserLike.text).toContain('data-module="sale-page"');
    const refused = await get(`/showtimes/${showtimeId}`, 'gzip, br;q=0');
    expect(refused.encoding).toBe('gzip');
    const script = (browserLike.text.match(/src="(\/assets\/buyer\.[0-9a-f]{12}\.js)"/) ?? [])[1]!;
    const [br, gz, plain] = [await get(script, 'br'), await get(script, true), await get(script, false)];
    expect(br.encoding).toBe('br');
    expect(br.text).toBe(plain.text);
    expect(br.wireBytes).toBeLessThan(gz.wireBytes);
    console.log(`buyer.js: ${plain.wireBytes} plain, ${gz.wireBytes} gzip, ${br.wireBytes} brotli`);
  });

  it('serves an old unhashed asset name with revalidation, and refuses unknown names', async () => {
    const old = await get('/assets/buyer.js', false);
    expect(old.status).toBe(200);
    expect(old.headers['cache-control']).toBe('no-cache');
    expect((await get('/assets/buyer.000000000000.js', false)).status).toBe(404);
    expect((await get('/assets/sale.js', false)).status).toBe(404);
  });
});
