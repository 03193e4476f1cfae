/**
 * `npm run chaos`: the fault suite on private instances (a PostgreSQL cluster initialised on a
 * spare port, a redis-server, the services as separate processes). `-- --short` runs the few-
 * seconds-per-fault version that `npm test` runs; `-- --only "kill -9 core"` picks faults.
 * Exits 1 on any breach (an invariant above 0, a 500, a recovery slower than 5 s).
 */
import { parseArgs } from 'node:util';
import { formatChaosReport } from './report';
import { FULL_SETTINGS, SHORT_SETTINGS, runChaosSuite } from './suite';

const { values } = parseArgs({
  options: {
    short: { type: 'boolean', default: false },
    only: { type: 'string', multiple: true },
    buyers: { type: 'string' },
    outage: { type: 'string' },
  },
});
const settings = {
  ...(values.short ? SHORT_SETTINGS : FULL_SETTINGS),
  ...(values.only ? { only: values.only } : {}),
  ...(values.buyers ? { buyers: Number(values.buyers) } : {}),
  ...(values.outage ? { outageMs: Number(values.outage) * 1000 } : {}),
  log: (line: string) => console.log(line),
};
const { results } = await runChaosSuite(settings);
console.log(`\n${formatChaosReport(results)}`);
process.exit(results.some((r) => r.breaches.length > 0) ? 1 : 0);
