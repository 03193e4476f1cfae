import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serviceProcess } from './processes';

/** A service that kills itself by `signal` (or exits 1) shortly after it starts, never ready. */
function dyingService(how: 'SIGKILL' | 'exit 1') {
  const dir = mkdtempSync(join(tmpdir(), 'wr-processes-'));
  const entry = join(dir, 'dies.ts');
  writeFileSync(
    entry,
    how === 'SIGKILL'
      ? `setTimeout(() => process.kill(process.pid, 'SIGKILL'), 50);\n`
      : `setTimeout(() => process.exit(1), 50);\n`,
  );
  return serviceProcess({
    name: 'dies',
    entry,
    env: {},
    ready: async () => false,
    logDir: dir,
    startTimeoutMs: 20_000,
  });
}

describe('serviceProcess.start', () => {
  it('takes a death by the named signal before readiness as the fault firing', async () => {
    const service = dyingService('SIGKILL');
    await service.start({ mayDieBy: 'SIGKILL' });
    expect(await service.exited(1_000)).toBe(true);
  });

  it('still throws when the process dies any other way (a start that failed)', async () => {
    await expect(dyingService('exit 1').start({ mayDieBy: 'SIGKILL' })).rejects.toThrow(/exited while starting/);
  });

  it('broken variant: without the option, the crash point firing early fails the start', async () => {
    await expect(dyingService('SIGKILL').start()).rejects.toThrow(/exited while starting/);
  });
});
