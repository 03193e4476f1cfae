import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, ERROR_STATUS } from '../lib/error-codes';
import { ERROR_NOTES } from '../lib/error-notes';
import { ERRORS_DOC, renderErrorsDoc } from './build-docs';

const committed = () => readFileSync(ERRORS_DOC, 'utf8');

describe('docs/errors.md', () => {
  it('is what `npm run build:docs` writes from the catalogue (run it after changing a code)', () => {
    expect(committed()).toBe(renderErrorsDoc());
  });

  it('lists every catalogued code once, with its status', () => {
    const rows = [...renderErrorsDoc().matchAll(/^\| (\d{3}) [^|]*\| `([A-Z_]+)` \|/gm)].map((m) => [
      m[2],
      Number(m[1]),
    ]);
    expect(rows.map(([code]) => code).sort()).toEqual([...ERROR_CODES].sort());
    for (const [code, status] of rows) expect(status).toBe(ERROR_STATUS[code as keyof typeof ERROR_STATUS]);
  });

  it('would catch a stale file: a code added, a status changed or a note reworded', () => {
    expect(renderErrorsDoc({ ...ERROR_STATUS, NEW_CODE: 409 })).not.toBe(committed());
    expect(renderErrorsDoc({ ...ERROR_STATUS, SOLD_OUT: 410 })).not.toBe(committed());
    expect(renderErrorsDoc(ERROR_STATUS, { ...ERROR_NOTES, INTERNAL: 'reworded' })).not.toBe(committed());
  });
});
