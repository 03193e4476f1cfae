import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendRecord, captureStdout, formatRecord } from './record';

describe('bench --record', () => {
  const entry = {
    name: 'holds',
    args: ['10'],
    at: new Date('2026-12-02T21:05:09Z'),
    commit: 'abc123def456',
    output: 'service 696 holds/s\nratio 0.57\n',
  };

  it('formats a dated entry with the commit and the output verbatim', () => {
    expect(formatRecord(entry)).toBe(
      '\n## 2026-12-02 21:05 UTC · `holds 10` · abc123def456\n\n```text\nservice 696 holds/s\nratio 0.57\n```\n',
    );
  });

  it('appends to the results file, keeping what is there', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'bench-record-')), 'results.md');
    writeFileSync(file, '# Results\n');
    appendRecord(file, entry);
    appendRecord(file, { ...entry, name: 'gate', args: [] });
    const text = readFileSync(file, 'utf8');
    expect(text.startsWith('# Results\n')).toBe(true);
    expect(text.match(/^## /gm)).toHaveLength(2);
    expect(text).toContain('`gate` · abc123def456');
  });

  it('captures what is written to stdout until stopped', () => {
    const capture = captureStdout();
    process.stdout.write('');
    process.stdout.write('a line\n');
    const text = capture.stop();
    expect(text).toBe('a line\n');
    const after = captureStdout();
    expect(after.stop()).toBe('');
  });
});
