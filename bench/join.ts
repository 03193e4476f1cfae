/**
 * `npm run bench -- join [seconds]`: joins per second through one edge process (real
 * middleware, customer token check, the join script, a signed queue token; a private
 * redis-server), each request from a pool of distinct pre-signed customer tokens so the
 * client does not sign, next to a bare node:http server answering a join-sized body in the
 * same run, under `wrk -t2 -c64`, alternating over three runs and keeping each side's median.
 * Prints `ratio join / bare` and the server's CPU time per request on each side. The room
 * is open with one slot and one admission a minute, so joins queue (the join path, not the
 * admission path, is measured); the pool cycles, so after the first pass a request re-joins
 * and gets the same place, still the whole join path.
 * Then the real edge entry as child processes, EDGE_PROCESSES=1 and one per core, side by side.
 */
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { generateSigningJwk, loadTokenKeys } from '../lib/token-keys';
import { parseEdgeConfig } from '../edge/src/config';
import { startEdge } from '../edge/src/node';
import { createCustomerTokens } from '../edge/src/tokens/customer-token';
import { startPrivateRedis } from '../queue/test/redis-servers';
import { byProcessCount } from './lib/edge-processes';

const run = promisify(execFile);
const CUSTOMERS = 5_000;
const CONNECTIONS = 64;
const ROUNDS = 3;

const JOIN_SCRIPT = `
local tokens = {}
for line in io.lines(os.getenv("TOKENS_FILE")) do tokens[#tokens + 1] = line end
local i = 0
local path = os.getenv("JOIN_PATH")
request = function()
  i = i % #tokens + 1
  return wrk.format("POST", path, { ["authorization"] = "Bearer " .. tokens[i], ["content-length"] = "0" })
end
`;

async function wrk(url: string, seconds: number, env: Record<string, string>, script: string) {
  const cpuBefore = process.cpuUsage();
  const { stdout } = await run('wrk', ['-t2', `-c${CONNECTIONS}`, `-d${seconds}s`, '-s', script, url], {
    env: { ...process.env, ...env },
    maxBuffer: 1 << 20,
  });
  const cpu = process.cpuUsage(cpuBefore);
  const requests = Number(/(\d+) requests in/.exec(stdout)?.[1] ?? NaN);
  return {
    requestsPerSecond: Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? NaN),
    /** This process's CPU time per request (µs); Redis's own work for a join is not in it. */
    cpuUsPerRequest: (cpu.user + cpu.system) / requests,
    non2xx: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(stdout)?.[1] ?? 0),
  };
}

/** The physical limit: node:http answering a join-sized JSON body to the same requests. */
async function startBareServer() {
  const body = JSON.stringify({
    state: 'waiting',
    position: 5123,
    etaSeconds: 512,
    pollAfterMs: 30000,
    queueToken: 'x'.repeat(220),
  });
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

export default async function joinBenchmark(args: string[]) {
  const seconds = Number(args[0] ?? 5);
  const dir = mkdtempSync(join(tmpdir(), 'bench-join-'));
  const scriptFile = join(dir, 'join.lua');
  const tokensFile = join(dir, 'tokens.txt');
  writeFileSync(scriptFile, JOIN_SCRIPT);
  const redisServer = await startPrivateRedis();
  const jwk = await generateSigningJwk('bench-join');
  const tokenKeys = await loadTokenKeys({ signingJwk: jwk });
  const edge = await startEdge(
    parseEdgeConfig({
      EDGE_PORT: '0',
      EDGE_HOST: '127.0.0.1',
      REDIS_URL: `redis://127.0.0.1:${redisServer.ports[0]}`,
      CORE_URL: 'http://127.0.0.1:9', // joins that queue never reach the core
      FLOOD_POINTS: '100000000', // one load generator address: limits would measure themselves
      DEMO_LOGIN: '1',
      LOG_LEVEL: 'error',
    }),
    { tokenKeys, consumeEvents: false },
  );
  const bare = await startBareServer();
  try {
    const showtimeId = '4343';
    await edge.app.rooms.engine.configure(showtimeId, {
      state: 'open',
      capacity: 1,
      admitPerMinute: 1,
      placesPerAddress: 1_000_000,
    });
    const signer = createCustomerTokens({ keys: tokenKeys, demoLogin: true, idp: null, clockToleranceMs: 5_000 });
    const tokens: string[] = [];
    for (let i = 0; i < CUSTOMERS; i++) tokens.push(await signer.signDemo(`bench-join-${i}`));
    writeFileSync(tokensFile, `${tokens.join('\n')}\n`);
    const env = { TOKENS_FILE: tokensFile, JOIN_PATH: `/api/showtimes/${showtimeId}/queue` };
    console.log(
      `${CUSTOMERS} distinct pre-signed customer tokens; wrk -t2 -c${CONNECTIONS} ${seconds}s, median of ${ROUNDS} alternating runs`,
    );
    console.log('(a 2-core machine shared with other work, wrk on the same cores: figures are indicative)');
    // Warm-up: JIT, and the first verification of every token (ES256, on the thread pool), which
    // is the cache's cost once per buyer, not the join's: measured runs see a warm cache.
    for (let round = 0; round < 6; round++) {
      await wrk(edge.url, 3, env, scriptFile);
      const warmed = await edge.app.rooms.engine.stats(showtimeId);
      if (warmed.ok && warmed.joined >= CUSTOMERS) break;
    }
    await wrk(bare.url, 2, env, scriptFile);
    const edgeRuns = [];
    const bareRuns = [];
    for (let round = 0; round < ROUNDS; round++) {
      edgeRuns.push(await wrk(edge.url, seconds, env, scriptFile));
      bareRuns.push(await wrk(bare.url, seconds, env, scriptFile));
    }
    const median = <R extends { requestsPerSecond: number }>(runs: R[]) =>
      [...runs].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)[Math.floor(runs.length / 2)]!;
    const [edgeMax, bareMax] = [median(edgeRuns), median(bareRuns)];
    const stats = await edge.app.rooms.engine.stats(showtimeId);
    const scriptStats = await redisScriptCost(redisServer.ports[0]!);
    const ratio = edgeMax.requestsPerSecond / bareMax.requestsPerSecond;
    console.log(`
  bare node:http          ${bareMax.requestsPerSecond.toFixed(0)} req/s   (runs: ${bareRuns.map((r) => r.requestsPerSecond.toFixed(0)).join(', ')})
  edge join               ${edgeMax.requestsPerSecond.toFixed(0)} req/s   (runs: ${edgeRuns.map((r) => r.requestsPerSecond.toFixed(0)).join(', ')}; non-2xx ${edgeRuns.reduce((n, r) => n + r.non2xx, 0)})
  ratio join / bare       ${ratio.toFixed(2)}   (goal ≥ 0.25: ${ratio >= 0.25 ? 'met' : 'NOT met'})
  server CPU / request    join ${edgeMax.cpuUsPerRequest.toFixed(1)} µs, bare ${bareMax.cpuUsPerRequest.toFixed(1)} µs: bare / join ${(bareMax.cpuUsPerRequest / edgeMax.cpuUsPerRequest).toFixed(2)} (the join's Redis script runs in redis-server, not counted here)
  room                    ${stats.ok ? `${stats.joined} joined, ${stats.waiting} waiting` : '?'}
  Redis per script call   ${scriptStats} (redis-server's own time for the join script, on the same two cores)
`);
    const processes = await byProcessCount(seconds, (url) => wrk(url, seconds, env, scriptFile), {
      REDIS_URL: `redis://127.0.0.1:${redisServer.ports[0]}`,
      CORE_URL: 'http://127.0.0.1:9',
      FLOOD_POINTS: '100000000',
      DEMO_LOGIN: '1',
      LOG_LEVEL: 'error',
      TOKEN_SIGNING_KEY: JSON.stringify(jwk),
      ADMIN_TOKEN: 'bench-admin-token-0123456789',
    });
    console.log(
      `  edge entry by processes  ${processes.map((p) => `EDGE_PROCESSES=${p.processes}: ${p.requestsPerSecond.toFixed(0)} joins/s (${(p.requestsPerSecond / bareMax.requestsPerSecond).toFixed(2)} of bare)`).join('   ')}\n`,
    );
  } finally {
    await bare.close();
    await edge.close();
    await redisServer.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** redis-server's own microseconds per EVALSHA (INFO commandstats), over the whole run. */
async function redisScriptCost(port: number): Promise<string> {
  const { stdout } = await run('redis-cli', ['-p', String(port), 'info', 'commandstats']);
  const match = /cmdstat_evalsha:calls=(\d+),usec=\d+,usec_per_call=([\d.]+)/.exec(stdout);
  return match ? `${Number(match[2]).toFixed(1)} µs (${match[1]} calls)` : 'not read';
}
