/**
 * Pages and assets compressed for the client: brotli where it accepts `br` and the runtime can
 * make it (Node passes node:zlib's brotli in; Workers have no node:zlib, and Cloudflare's own
 * edge compresses there), else gzip (hono/compress). Only bodies worth it (≥ 1 KB) and of text
 * types; the JSON API is not mounted under these routes. Fingerprinted assets never change, so
 * their brotli form is made once and kept.
 */
import type { MiddlewareHandler } from 'hono';
import { compress } from 'hono/compress';

export type Brotli = (body: Uint8Array) => Uint8Array;

const TEXT = /^(text\/|application\/(javascript|json)|image\/svg)/;

/** Whether Accept-Encoding names br with a quality above zero. */
export function acceptsBrotli(header: string | undefined): boolean {
  return (header ?? '').split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding !== 'br') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return !q || Number(q.slice(2)) > 0;
  });
}

export function pageCompression(
  brotli: Brotli | undefined,
  options: { threshold?: number; keep?: number } = {},
): MiddlewareHandler {
  const threshold = options.threshold ?? 1024;
  const gzip = compress({ threshold });
  const kept = new Map<string, Uint8Array>();
  const keep = options.keep ?? 16;
  return async (c, next) => {
    if (!brotli || !acceptsBrotli(c.req.header('accept-encoding'))) return gzip(c, next);
    await next();
    const response = c.res;
    const type = response.headers.get('content-type') ?? '';
    if (!response.body || response.headers.has('content-encoding') || !TEXT.test(type) || c.req.method === 'HEAD')
      return;
    const immutable = (response.headers.get('cache-control') ?? '').includes('immutable');
    const key = immutable ? c.req.path : null;
    let body = key ? kept.get(key) : undefined;
    if (!body) {
      const plain = new Uint8Array(await response.arrayBuffer());
      if (plain.byteLength < threshold) {
        c.res = new Response(plain, response);
        return;
      }
      body = brotli(plain);
      if (key && kept.size < keep) kept.set(key, body);
    }
    const headers = new Headers(response.headers);
    headers.set('Content-Encoding', 'br');
    headers.delete('Content-Length');
    const vary = headers.get('Vary');
    if (!vary || !/accept-encoding/i.test(vary))
      headers.set('Vary', vary ? `${vary}, Accept-Encoding` : 'Accept-Encoding');
    c.res = undefined as unknown as Response;
    c.res = new Response(body as Uint8Array<ArrayBuffer>, { status: response.status, headers });
  };
}
