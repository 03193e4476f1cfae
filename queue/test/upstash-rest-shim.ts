/**
 * A small server that speaks Upstash's REST protocol in front of a real Redis, so the
 * @upstash/redis adapter is tested against the same Redis as ioredis:
 *   POST /            body ["CMD", ...args]        -> {"result": …} | {"error": "…"} (400)
 *   POST /pipeline    body [["CMD", ...], ...]     -> [{"result": …} | {"error": "…"}, ...]
 * With `Upstash-Encoding: base64` every string in a result is base64 except "OK", as the
 * real service does and as the client decodes.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';

export const SHIM_TOKEN = 'test-token';

function encode(value: unknown): unknown {
  if (typeof value === 'string') return value === 'OK' ? value : Buffer.from(value, 'utf8').toString('base64');
  if (Array.isArray(value)) return value.map(encode);
  return value ?? null;
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

export interface UpstashShim {
  url: string;
  close(): Promise<void>;
}

export async function startUpstashShim(redisUrl: string): Promise<UpstashShim> {
  const redis = new Redis(redisUrl);
  const execute = async (command: unknown): Promise<{ result?: unknown; error?: string }> => {
    if (!Array.isArray(command) || command.length === 0) return { error: 'ERR command must be a non-empty array' };
    const [name, ...args] = command.map(String);
    try {
      return { result: await redis.call(name!, ...args) };
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) };
    }
  };

  const server: Server = createServer(async (request, response) => {
    const reply = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (request.headers.authorization !== `Bearer ${SHIM_TOKEN}`) return reply(401, { error: 'Unauthorized' });
    const base64 = String(request.headers['upstash-encoding'] ?? '').toLowerCase() === 'base64';
    const shape = (outcome: { result?: unknown; error?: string }) =>
      outcome.error !== undefined
        ? { error: outcome.error }
        : { result: base64 ? encode(outcome.result) : (outcome.result ?? null) };
    try {
      const body = await readJson(request);
      const path = (request.url ?? '/').replace(/\/+$/, '');
      if (path === '/pipeline' || path === '/multi-exec') {
        const commands = Array.isArray(body) ? body : [];
        const outcomes = [];
        for (const command of commands) outcomes.push(shape(await execute(command)));
        return reply(200, outcomes);
      }
      const outcome = shape(await execute(body));
      return reply('error' in outcome ? 400 : 200, outcome);
    } catch (error) {
      return reply(400, { error: error instanceof Error ? error.message : String(error) });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      redis.disconnect();
    },
  };
}
