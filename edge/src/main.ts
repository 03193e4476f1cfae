/**
 * `npm run edge`: the edge alone on EDGE_PORT, against CORE_URL and REDIS_URL (the
 * in-process store when REDIS_URL is absent, which only makes sense next to a ticker in the
 * same process: use `npm start` for that).
 */
import { parseEdgeConfig } from './config';
import { startEdge } from './node';

const edge = await startEdge(parseEdgeConfig(process.env));
console.log(`edge listening on ${edge.url}`);
const stop = async () => {
  await edge.close();
  process.exit(0);
};
process.once('SIGINT', () => void stop());
process.once('SIGTERM', () => void stop());
