/**
 * The catalogue (error-codes.ts) against what uses it: every code thrown in the core's, the
 * edge's and lib's source with its status, and the browser's messages
 * (edge/client/core/messages.ts), which must have words for every code. The table in
 * docs/errors.md is generated from the catalogue (scripts/build-docs.test.ts).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_MESSAGES } from '../edge/client/core/messages';
import { ERROR_CODES, ERROR_STATUS, isErrorCode } from './error-codes';
import { AppError, errorResponseBody } from './errors';

const root = path.resolve(import.meta.dirname, '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir)).flatMap((name) => {
    const relative = path.join(dir, name);
    if (statSync(path.join(root, relative)).isDirectory()) return sourceFiles(relative);
    return relative.endsWith('.ts') && !relative.endsWith('.test.ts') && !relative.endsWith('.gen.ts')
      ? [relative]
      : [];
  });
}

const HELPER_STATUS: Record<string, number> = {
  badRequest: 400,
  unauthorized: 401,
  forbidden: 403,
  notFound: 404,
  conflict: 409,
  unprocessable: 422,
  unavailable: 503,
};

/** [file, code, status written at the throw site (null: taken from the catalogue)]. */
function thrownCodes(): [string, string, number | null][] {
  const found: [string, string, number | null][] = [];
  for (const file of ['core/src', 'edge/src', 'lib'].flatMap(sourceFiles)) {
    const text = readFileSync(path.join(root, file), 'utf8');
    for (const m of text.matchAll(/new AppError\(\s*(\d{3}),\s*'([A-Z_]+)'/g)) found.push([file, m[2]!, Number(m[1])]);
    for (const m of text.matchAll(/new AppError\(\s*'([A-Z_]+)'/g)) found.push([file, m[1]!, null]);
    for (const m of text.matchAll(
      /\b(badRequest|unauthorized|forbidden|notFound|conflict|unprocessable|unavailable)\(\s*'([A-Z_]+)'/g,
    )) {
      found.push([file, m[2]!, HELPER_STATUS[m[1]!]!]);
    }
  }
  return found;
}

/** Codes the browser code compares an answer's error code with. */
function browserCodes(): Set<string> {
  const codes = new Set<string>();
  for (const file of sourceFiles('edge/client')) {
    const text = readFileSync(path.join(root, file), 'utf8');
    for (const m of text.matchAll(/(?:case |=== |code: )'([A-Z][A-Z]+(?:_[A-Z]+)+)'/g)) codes.add(m[1]!);
  }
  return codes;
}

describe('error catalogue', () => {
  it('an AppError built from a code takes its status from the catalogue; the older form is unchanged', () => {
    const taken = new AppError('SEATS_UNAVAILABLE', 'Seats taken', { details: { seats: ['A1'] } });
    expect([taken.status, taken.code, taken.message]).toEqual([409, 'SEATS_UNAVAILABLE', 'Seats taken']);
    expect(errorResponseBody(taken)).toEqual({
      error: { code: 'SEATS_UNAVAILABLE', message: 'Seats taken', seats: ['A1'] },
    });
    const busy = new AppError(503, 'BUSY', 'Busy', { retryAfterSeconds: 2 });
    expect([busy.status, busy.code, busy.retryAfterSeconds]).toEqual([503, 'BUSY', 2]);
    expect(new AppError('BUSY', 'Busy', { retryAfterSeconds: 2 })).toMatchObject({ status: 503, retryAfterSeconds: 2 });
  });

  it('every code thrown in the source is catalogued, with the status the catalogue gives it', () => {
    const thrown = thrownCodes();
    expect(thrown.length).toBeGreaterThan(50);
    const wrong = thrown.filter(
      ([, code, status]) => !isErrorCode(code) || (status !== null && ERROR_STATUS[code] !== status),
    );
    expect(wrong.map(([file, code, status]) => `${file}: ${code} ${status ?? ''}`)).toEqual([]);
  });

  it("the browser's messages name every code of the catalogue in words, and no other code", () => {
    expect(Object.keys(ERROR_MESSAGES).sort()).toEqual([...ERROR_CODES].sort());
    for (const [code, words] of Object.entries(ERROR_MESSAGES)) {
      const text =
        typeof words === 'function'
          ? words({
              status: ERROR_STATUS[code as keyof typeof ERROR_STATUS],
              ok: false,
              json: null,
              retryAfterSeconds: null,
            })
          : words;
      // Words for a person: a sentence, not the code or the system's internals.
      expect(text, code).toMatch(/^[A-Z].{20,}[.)]$/);
      expect(text, code).not.toMatch(/[A-Z]{2,}_[A-Z]|\b(null|undefined|Redis|PostgreSQL|SQL|JSON|HTTP|token)\b/i);
    }
    const codes = browserCodes();
    expect(codes.size).toBeGreaterThan(0);
    expect([...codes].filter((code) => !isErrorCode(code))).toEqual([]);
  });
});
