import { afterAll, beforeAll, expect, it } from 'vitest';
import { startControlProbe, type ControlProbe } from './control-probe';

/**
 * The control probe must show a starved machine as lag, or the recovery goal would excuse
 * nothing (or everything): its server is stopped (SIGSTOP) for 600 ms, the way a process
 * waits for a CPU on a saturated machine, and a probe sent meanwhile must take at least that
 * long. (Only lower bounds: how fast the running server answers is the machine's business.)
 */
let control: ControlProbe;
beforeAll(async () => {
  control = await startControlProbe();
});
afterAll(() => control.close());

it('reads a stopped server as lag', async () => {
  // It answers at all (a probe that times out reads as the whole timeout).
  expect(await control.probe(10_000)).toBeLessThan(10_000);
  process.kill(control.pid, 'SIGSTOP');
  const resume = setTimeout(() => process.kill(control.pid, 'SIGCONT'), 600);
  const starved = await control.probe(5_000);
  clearTimeout(resume);
  process.kill(control.pid, 'SIGCONT');
  expect(starved).toBeGreaterThanOrEqual(550);
});
