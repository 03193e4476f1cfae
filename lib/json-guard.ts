/**
 * The guard every JSON body passes right after JSON.parse, before any schema sees it.
 *
 * - Depth: schema validators, error formatters and JSON.stringify walk a value recursively,
 *   so a 10 KB body of `[[[[…]]]]` 5,000 deep overflowed the stack somewhere downstream and
 *   answered 500. Nothing this service reads is nested more than a few levels.
 * - Text PostgreSQL cannot store: NUL (SQLSTATE 22021) and lone UTF-16 surrogates (which
 *   UTF-8 cannot encode; they were stored silently as U+FFFD). Refused here, naming the field,
 *   rather than failing deep inside a transaction.
 * - Size: a bound on the number of values, so the walk's own work is bounded even when a
 *   caller forgets the body limit.
 *
 * The walk is iterative (an explicit stack), so the guard itself cannot overflow whatever
 * the input.
 */
import { badRequest, unprocessable } from './errors';

export const JSON_MAX_DEPTH = 32;
export const JSON_MAX_VALUES = 100_000;

export interface JsonLimits {
  maxDepth?: number;
  maxValues?: number;
}

export interface JsonDefect {
  /** Dotted path of the offending value, as parseWith names fields (`seats.3.label`), or `(root)`. */
  path: string;
  message: string;
}

// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a string cannot be stored as text, or null. */
export function textDefect(text: string): string | null {
  if (text.includes('\u0000')) return 'must not contain the NUL character (\\u0000)';
  if (LONE_SURROGATE.test(text)) return 'must not contain a lone UTF-16 surrogate (invalid Unicode)';
  return null;
}

const MAX_SEGMENT_CHARS = 64;

/** A value to visit; the path is kept as a link to the parent, built only for a defect. */
interface Frame {
  value: unknown;
  key: string | null;
  parent: Frame | null;
  depth: number;
}

function pathOf(frame: Frame, lastKey?: string): string {
  const segments: string[] = lastKey === undefined ? [] : [lastKey];
  for (let at: Frame | null = frame; at !== null && at.key !== null; at = at.parent) segments.push(at.key);
  if (segments.length === 0) return '(root)';
  return segments
    .reverse()
    .map((s) => (s.length > MAX_SEGMENT_CHARS ? `${s.slice(0, MAX_SEGMENT_CHARS)}…` : s))
    .join('.');
}

/**
 * The first defect of a parsed JSON value (too deep, too many values, a string or key that
 * cannot be stored), or null when the value is fine. Never recurses.
 */
export function findJsonDefect(value: unknown, limits: JsonLimits = {}): JsonDefect | null {
  const maxDepth = limits.maxDepth ?? JSON_MAX_DEPTH;
  const maxValues = limits.maxValues ?? JSON_MAX_VALUES;
  const stack: Frame[] = [{ value, key: null, parent: null, depth: 0 }];
  let seen = 0;
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const current = frame.value;
    if (++seen > maxValues) return { path: pathOf(frame), message: `the body has more than ${maxValues} values` };
    if (typeof current === 'string') {
      const defect = textDefect(current);
      if (defect) return { path: pathOf(frame), message: defect };
      continue;
    }
    if (typeof current !== 'object' || current === null) continue;
    if (frame.depth >= maxDepth) return { path: pathOf(frame), message: `is nested deeper than ${maxDepth} levels` };
    const depth = frame.depth + 1;
    if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--)
        stack.push({ value: current[i], key: String(i), parent: frame, depth });
      continue;
    }
    const keys = Object.keys(current);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      const keyDefect = textDefect(key);
      if (keyDefect) return { path: pathOf(frame, key), message: `its name ${keyDefect}` };
      stack.push({ value: (current as Record<string, unknown>)[key], key, parent: frame, depth });
    }
  }
  return null;
}

/** Throws the 422 VALIDATION_FAILED that parseWith would, naming the defect's path. */
export function assertSafeJson(value: unknown, limits?: JsonLimits): void {
  const defect = findJsonDefect(value, limits);
  if (!defect) return;
  throw unprocessable('VALIDATION_FAILED', `${defect.path}: ${defect.message}`, { issues: [defect] });
}

/** JSON.parse plus the guard: 400 MALFORMED_JSON when it does not parse, 422 when it is unsafe. */
export function parseSafeJson(text: string, limits?: JsonLimits): unknown {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw badRequest('MALFORMED_JSON', 'The request body is not valid JSON');
  }
  assertSafeJson(raw, limits);
  return raw;
}
