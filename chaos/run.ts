/**
 * `npm run chaos`: the fault suite on private instances (a PostgreSQL cluster initialised on a
 * spare port, a redis-server, the services as separate processes). `-- --short` runs the few-
 * seconds-per-fault version that `npm test` runs; `-- --only "kill -9 core"` picks faults (the
 * control run always runs first). Prints one table, writes it as JSON under reports/chaos/,
 * and exits 1 if any run failed (a check above 0 or unable to run, a 500, too little work,
 * a recovery slower than 5 s beyond the machine's lag).
 */
import { parseArgs } from 'node:util';
import { formatChaosReport, writeChaosJson } from './report';
import { FULL_SETTINGS, SHORT_SETTINGS, runChaosSuite } from './suite';

const { values } = parseArgs({
  options: {
    short: { type: 'boolean', default: false },
    only: { type: 'string', multiple: true },
    buyers: { type: 'string' },
    outage: { type: 'string' },
    // A prefixed deployment (REDIS_KEY_PREFIX on every service), e.g. --key-prefix "wr-a:".
    'key-prefix': { type: 'string' },
  },
});
const settings = {
  ...(values.short ? SHORT_SETTINGS : FULL_SETTINGS),
  ...(values.only ? { only: values.only } : {}),
  ...(values.buyers ? { buyers: Number(values.buyers) } : {}),
  ...(values.outage ? { outageMs: Number(values.outage) * 1000 } : {}),
  ...(values['key-prefix'] ? { keyPrefix: values['key-prefix'] } : {}),
  log: (line: string) => console.log(line),
};
const { results } = await runChaosSuite(settings);
console.log(`\n${formatChaosReport(results)}`);
console.log(`JSON: ${writeChaosJson(results, settings)}`);
process.exit(results.some((r) => r.failures.length > 0) ? 1 : 0);
