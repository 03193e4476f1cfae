/**
 * `npm run edge`: the edge alone on EDGE_PORT, against CORE_URL and REDIS_URL (the
 * in-process store when REDIS_URL is absent, which only makes sense next to a ticker in the
 * same process: use `npm start` for that). With EDGE_PROCESSES above one (the default in
 * production: one per core), this process is the primary of that many edge processes on the
 * same port (node-cluster.ts) and serves nothing itself.
 */
import cluster from 'node:cluster';
import pino from 'pino';
import { parseEdgeConfig } from './config';
import { startEdge } from './node';
import { edgeProcessCount, runPrimary } from './node-cluster';

const SHUTDOWN_GRACE_MS = 10_000;
const config = parseEdgeConfig(process.env);
const processes = edgeProcessCount(config);

if (processes > 1 && cluster.isPrimary) {
  const logger = pino({ name: 'edge-primary', level: config.logLevel });
  const primary = runPrimary({ processes, logger, shutdownGraceMs: SHUTDOWN_GRACE_MS });
  await primary.ready;
  console.log(
    `edge listening on http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port} with ${processes} processes`,
  );
  const stop = async () => {
    await primary.stop();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
} else {
  const edge = await startEdge(config);
  if (!cluster.isWorker) console.log(`edge listening on ${edge.url}`);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await edge.close({ graceMs: SHUTDOWN_GRACE_MS - 1_000 });
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  // A worker whose primary is gone (killed outright) stops too, rather than serve on unsupervised.
  if (cluster.isWorker) process.once('disconnect', () => void stop());
}
