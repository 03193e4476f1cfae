import { describe, expect, it } from 'vitest';
import { continueTrace, parseTraceparent, traceLogFields, traceparentOf } from './trace-context';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';

describe('W3C traceparent', () => {
  it('continues a valid caller trace under a new span of our own', () => {
    const trace = continueTrace(`00-${TRACE}-${PARENT}-01`);
    expect(trace).toMatchObject({ traceId: TRACE, parentSpanId: PARENT, flags: '01' });
    expect(trace.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(trace.spanId).not.toBe(PARENT);
    expect(traceparentOf(trace)).toBe(`00-${TRACE}-${trace.spanId}-01`);
    expect(traceLogFields(trace)).toEqual({ trace_id: TRACE, span_id: trace.spanId, parent_span_id: PARENT });
  });

  it("keeps the caller's flags (not sampled stays not sampled)", () => {
    expect(continueTrace(`00-${TRACE}-${PARENT}-00`).flags).toBe('00');
  });

  it('accepts a later version with extra fields, as the spec asks', () => {
    expect(parseTraceparent(`01-${TRACE}-${PARENT}-01-whatever`)).toEqual({
      traceId: TRACE,
      parentSpanId: PARENT,
      flags: '01',
    });
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['garbage', 'hello'],
    ['version ff', `ff-${TRACE}-${PARENT}-01`],
    ['version 00 with extra fields', `00-${TRACE}-${PARENT}-01-extra`],
    ['all-zero trace id', `00-${'0'.repeat(32)}-${PARENT}-01`],
    ['all-zero parent id', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['upper-case hex', `00-${TRACE.toUpperCase()}-${PARENT}-01`],
    ['short trace id', `00-${TRACE.slice(1)}-${PARENT}-01`],
  ])('starts a new sampled trace when the header is %s', (_name, header) => {
    expect(parseTraceparent(header)).toBeNull();
    const trace = continueTrace(header);
    expect(trace.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(trace.traceId).not.toBe(TRACE);
    expect(trace).toMatchObject({ parentSpanId: null, flags: '01' });
    expect(traceLogFields(trace)).toEqual({ trace_id: trace.traceId, span_id: trace.spanId });
  });

  it('never repeats ids', () => {
    const ids = new Set(
      Array.from({ length: 1000 }, () => continueTrace(undefined)).flatMap((t) => [t.traceId, t.spanId]),
    );
    expect(ids.size).toBe(2000);
  });

  it('keeps every id well formed across refills of the random pool (24 KB of ids, a 4 KB pool)', () => {
    for (let i = 0; i < 1000; i++) {
      const trace = continueTrace(undefined);
      expect(trace.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(trace.spanId).toMatch(/^[0-9a-f]{16}$/);
      expect(trace.traceId).not.toMatch(/^0+$/);
    }
  });
});
