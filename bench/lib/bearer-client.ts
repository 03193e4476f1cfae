/**
 * The load generators' HTTP client: one keep-alive agent, a bearer token per request, JSON
 * bodies, Nagle off (without it a body waits for the server's delayed ACK, ~40 ms).
 */
import http from 'node:http';

export type BearerRequest = (
  method: string,
  path: string,
  token: string,
  body?: string,
) => Promise<{ status: number; body: string }>;

/** `close` lets the process exit (keep-alive sockets would hold it open). */
export function bearerClient(url: string, maxSockets: number): { request: BearerRequest; close: () => void } {
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  const target = new URL(url);
  const request: BearerRequest = (method, path, token, body) =>
    new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: target.hostname,
          port: target.port,
          method,
          path,
          agent,
          headers: {
            authorization: `Bearer ${token}`,
            ...(body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}),
          },
        },
        (res) => {
          let data = '';
          res.setEncoding('utf8');
          res.on('data', (chunk) => (data += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data }));
        },
      );
      req.on('socket', (socket) => socket.setNoDelay(true));
      req.on('error', reject);
      req.end(body);
    });
  return { request, close: () => agent.destroy() };
}
