/**
 * Streams a request body slowly over a real socket and notes how much of it had been sent when
 * the answer came: a server that refuses an oversized body while reading it answers long before
 * the end; one that buffers first answers only after the last byte. No clock is read: the test
 * compares bytes, and a chunk is written only once the previous one left and the event loop
 * turned, so the server has every chance to answer in between.
 */
import { request as httpRequest } from 'node:http';

export interface SlowBodyAnswer {
  status: number;
  code: string | null;
  /** Body bytes written when the answer's head arrived. */
  sentAtAnswer: number;
  total: number;
}

export function sendBodySlowly(options: {
  port: number;
  method: string;
  path: string;
  totalBytes: number;
  /** `declared`: Content-Length up front; `chunked`: Transfer-Encoding: chunked. */
  framing: 'declared' | 'chunked';
  headers?: Record<string, string>;
  chunkBytes?: number;
}): Promise<SlowBodyAnswer> {
  const chunkBytes = options.chunkBytes ?? 16 * 1024;
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', ...(options.headers ?? {}) };
    if (options.framing === 'declared') headers['content-length'] = String(options.totalBytes);
    else headers['transfer-encoding'] = 'chunked';
    let sent = 0;
    let answered = false;
    const req = httpRequest(
      { host: '127.0.0.1', port: options.port, method: options.method, path: options.path, headers, agent: false },
      (res) => {
        answered = true;
        const sentAtAnswer = sent;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => {
          let code: string | null = null;
          try {
            code = JSON.parse(text).error?.code ?? null;
          } catch {
            code = null;
          }
          req.destroy();
          resolve({ status: res.statusCode ?? 0, code, sentAtAnswer, total: options.totalBytes });
        });
      },
    );
    // The server may close the connection once it has answered: not an error here.
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (answered || error.code === 'EPIPE' || error.code === 'ECONNRESET') return;
      reject(error);
    });
    const chunk = Buffer.alloc(chunkBytes, 0x20);
    const next = () => {
      if (answered || req.destroyed) return;
      if (sent >= options.totalBytes) return void req.end();
      const piece = chunk.subarray(0, Math.min(chunkBytes, options.totalBytes - sent));
      sent += piece.length;
      // The next chunk only after this one is flushed and a few turns of the event loop.
      req.write(piece, () => setTimeout(next, 2));
    };
    req.flushHeaders();
    next();
  });
}
