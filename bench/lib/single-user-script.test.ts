import { describe, expect, it } from 'vitest';
import { singleUserScript, toStatements } from './single-user-script';

describe('the holds scripts for a single-user PostgreSQL', () => {
  it('prepares the same two statements and executes them pair by pair, hold and cancel on one hold id', () => {
    const lines = singleUserScript('same', 7, 3).trim().split('\n');
    expect(lines.filter((line) => line.startsWith('PREPARE'))).toHaveLength(2);
    expect(lines[2]).toContain('hold_seats($1, $2, ARRAY[$3], $4)');
    expect(lines[3]).toMatch(/^PREPARE second_half\(.*\) AS WITH ended AS \( UPDATE seat_hold/);
    const executes = lines.filter((line) => line.startsWith('EXECUTE'));
    expect(executes).toHaveLength(6);
    for (let pair = 0; pair < 3; pair++) {
      const hold = executes[2 * pair]!.replace('first_half', '');
      expect(executes[2 * pair + 1]).toBe(`EXECUTE second_half${hold.slice('EXECUTE '.length)}`);
    }
    // No pgbench variable survives (a `:name` would be a syntax error or, worse, a cast).
    expect(lines.join('\n').replaceAll('::', '')).not.toMatch(/(^|[^:]):[a-z_]+/);
  });

  it('draws hold ids spread like random ones, the same in every run', () => {
    const ids = (script: string) => [...script.matchAll(/'([0-9a-f-]{36})'\)$/gm)].map((m) => m[1]);
    const first = ids(singleUserScript('same', 1, 50));
    expect(new Set(first).size).toBe(50);
    expect(ids(singleUserScript('same', 1, 50))).toEqual(first);
    for (const id of first) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // Spread over the key space, not counting up from zero.
    expect(new Set(first.map((id) => id![0])).size).toBeGreaterThan(8);
  });

  it('refuses a script with a pgbench variable it does not know how to pass', () => {
    expect(() => toStatements('SELECT :unknown;\nSELECT 1;\n')).toThrow(/variable is left in/);
  });
});
