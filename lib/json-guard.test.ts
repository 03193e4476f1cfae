import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AppError } from './errors';
import { findJsonDefect, JSON_MAX_DEPTH, parseSafeJson, textDefect, type JsonDefect } from './json-guard';

type Walk = (value: unknown) => JsonDefect | null;

const nested = (depth: number, leaf = '1') => `${'['.repeat(depth)}${leaf}${']'.repeat(depth)}`;

/** Puts `bad` somewhere inside `value` (as an element, a member or a key); returns its path. */
function plant(value: unknown, bad: string, choices: number[], asKey: boolean): { value: unknown; path: string } {
  const path: string[] = [];
  const root: { v: unknown } = { v: value };
  let holder: Record<string, unknown> | unknown[] = root as unknown as Record<string, unknown>;
  let slot: string | number = 'v';
  for (const choice of choices) {
    const current: unknown = (holder as Record<string, unknown>)[slot as string];
    if (typeof current !== 'object' || current === null || path.length >= 10) break;
    const keys: Array<string | number> = Array.isArray(current) ? current.map((_, i) => i) : Object.keys(current);
    if (keys.length === 0) break;
    const next: string | number = keys[choice % keys.length]!;
    path.push(String(next));
    holder = current as Record<string, unknown>;
    slot = next;
  }
  if (asKey) {
    (holder as Record<string, unknown>)[slot as string] = { [bad]: 1 };
    path.push(bad);
  } else {
    (holder as Record<string, unknown>)[slot as string] = bad;
  }
  return { value: root.v, path: path.length ? path.join('.') : '(root)' };
}

const badText = fc.oneof(
  fc.tuple(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 })).map(([a, b]) => `${a}\u0000${b}`),
  fc
    .tuple(fc.string({ maxLength: 5 }), fc.constantFrom('\uD800', '\uDBFF', '\uDC00', '\uDFFF'))
    .map(([a, s]) => `${a}${s}`),
);

/** The properties any correct walk has; returns fast-check's verdict instead of throwing. */
async function checkWalk(walk: Walk) {
  return fc.check(
    fc.property(
      fc.jsonValue({ maxDepth: 8 }),
      badText,
      fc.array(fc.nat(), { maxLength: 10 }),
      fc.boolean(),
      fc.integer({ min: 33, max: 20_000 }),
      (good, bad, choices, asKey, depth) => {
        const text = JSON.stringify(good);
        // Within bounds: passes, and the value is unchanged by the walk.
        if (walk(JSON.parse(text)) !== null) return false;
        const parsed = JSON.parse(text);
        walk(parsed);
        if (JSON.stringify(parsed) !== text) return false;
        // A NUL or lone surrogate anywhere (value or key): refused, naming where.
        const planted = plant(JSON.parse(text), bad, choices, asKey);
        const defect = walk(planted.value);
        if (defect === null || defect.path !== planted.path) return false;
        // Too deep: refused.
        return walk(JSON.parse(nested(depth))) !== null;
      },
    ),
    { numRuns: 200, seed: 42 },
  );
}

describe('JSON guard', () => {
  it('passes any value within bounds unchanged; refuses NUL, lone surrogates and excess depth, naming the path', async () => {
    const verdict = await checkWalk(findJsonDefect);
    expect(verdict.failed, String(verdict.counterexample)).toBe(false);
  });

  it('stays iterative: 200,000 levels are refused, not a stack overflow', () => {
    expect(findJsonDefect(JSON.parse(nested(200_000)))).toMatchObject({
      message: expect.stringContaining('deeper than 32'),
    });
    expect(findJsonDefect(JSON.parse(nested(JSON_MAX_DEPTH - 1)))).toBeNull();
    expect(findJsonDefect(JSON.parse(nested(JSON_MAX_DEPTH)))).toBeNull();
    expect(findJsonDefect(JSON.parse(nested(JSON_MAX_DEPTH + 1)))).not.toBeNull();
  });

  it('answers 400 for malformed JSON and 422 VALIDATION_FAILED naming the field otherwise', () => {
    const refusal = (text: string) => {
      try {
        parseSafeJson(text);
        return null;
      } catch (error) {
        return error as AppError;
      }
    };
    expect(refusal('{')).toMatchObject({ status: 400, code: 'MALFORMED_JSON' });
    const nul = refusal('{"venue":{"name":"Rex\\u0000"}}');
    expect(nul).toMatchObject({
      status: 422,
      code: 'VALIDATION_FAILED',
      details: { issues: [{ path: 'venue.name' }] },
    });
    expect(refusal('{"title":"a\\ud800b"}')).toMatchObject({ status: 422, details: { issues: [{ path: 'title' }] } });
    expect(refusal('{"title":"ok \\ud83c\\udfac"}')).toBeNull(); // a proper pair (an emoji) is fine
    expect(refusal(nested(5_000))).toMatchObject({ status: 422, code: 'VALIDATION_FAILED' });
  });

  describe('broken variants the properties catch', () => {
    // The obvious recursive walk: correct on small values, but deep input overflows the stack.
    const recursiveWalk: Walk = (value) => {
      const visit = (v: unknown, path: string[]): JsonDefect | null => {
        if (typeof v === 'string')
          return textDefect(v) ? { path: path.join('.') || '(root)', message: 'bad text' } : null;
        if (typeof v !== 'object' || v === null) return null;
        for (const [k, child] of Object.entries(v)) {
          if (textDefect(k)) return { path: [...path, k].join('.'), message: 'bad key' };
          const found = visit(child, [...path, k]);
          if (found) return found;
        }
        return null;
      };
      return visit(value, []);
    };

    it('a recursive walk overflows on deep input', () => {
      expect(() => recursiveWalk(JSON.parse(nested(200_000)))).toThrow(RangeError);
    });

    it('a walk without a depth bound lets excess depth through', async () => {
      expect((await checkWalk(recursiveWalk)).failed).toBe(true);
    });

    it('a walk that checks only NUL lets lone surrogates through', async () => {
      const nulOnly: Walk = (value) => {
        const defect = findJsonDefect(value);
        return defect?.message.includes('NUL') ? defect : defect?.message.includes('deeper') ? defect : null;
      };
      expect((await checkWalk(nulOnly)).failed).toBe(true);
    });

    it('a walk that ignores keys lets a NUL key through', async () => {
      const valuesOnly: Walk = (value) => {
        const defect = findJsonDefect(value);
        return defect?.message.startsWith('its name') ? null : defect;
      };
      expect((await checkWalk(valuesOnly)).failed).toBe(true);
    });
  });
});
