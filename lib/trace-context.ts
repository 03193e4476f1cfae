/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/): the `traceparent` header that lets
 * any OpenTelemetry-compatible tool stitch one purchase together across the edge, the core and
 * the payment gateway. Each service continues the caller's trace (same trace id) under a span id
 * of its own, logs both, and sends its own span as the parent of the next call.
 *
 *   traceparent: 00-<trace-id: 32 hex>-<parent-id: 16 hex>-<flags: 2 hex>
 *
 * No SDK: parsing and formatting the header is all that propagation needs, and it runs the same
 * on Node and in Workers (Web Crypto only).
 */
export interface TraceContext {
  traceId: string;
  /** This service's span for the request. */
  spanId: string;
  /** The caller's span, when the caller sent a valid traceparent. */
  parentSpanId: string | null;
  /** Trace flags as two hex digits ("01" = sampled). */
  flags: string;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ALL_ZERO = /^0+$/;

// Ids are drawn from a pool filled 4 KB at a time, each byte used once: a getRandomValues call
// per id (a WebIDL check and a syscall for 8 or 16 bytes) was the core's largest cost of its own
// per request after the sockets. Filled on first use, never at module scope (Workers forbid it).
const POOL_BYTES = 4096;
const pool = new Uint8Array(POOL_BYTES);
let poolOffset = POOL_BYTES;
const HEX_BYTE = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

function randomHex(bytes: number): string {
  // An all-zero id is invalid by the spec; at 8 or 16 random bytes it never happens, but be exact.
  for (;;) {
    if (poolOffset + bytes > POOL_BYTES) {
      crypto.getRandomValues(pool);
      poolOffset = 0;
    }
    let hex = '';
    let zero = true;
    for (let i = poolOffset; i < poolOffset + bytes; i++) {
      const byte = pool[i]!;
      if (byte !== 0) zero = false;
      hex += HEX_BYTE[byte];
    }
    poolOffset += bytes;
    if (!zero) return hex;
  }
}

export const newSpanId = () => randomHex(8);

/** The caller's trace, or null when the header is missing or invalid (the spec says: start a new one). */
export function parseTraceparent(
  header: string | null | undefined,
): { traceId: string; parentSpanId: string; flags: string } | null {
  if (!header) return null;
  // Upper-case hex is invalid by the spec, not a variant to normalise.
  const match = TRACEPARENT.exec(header.trim());
  if (!match) return null;
  const [, version, traceId, parentSpanId, flags, rest] = match;
  // Version ff is forbidden; version 00 has no trailing fields; later versions may add some.
  if (version === 'ff' || (version === '00' && rest)) return null;
  if (ALL_ZERO.test(traceId!) || ALL_ZERO.test(parentSpanId!)) return null;
  return { traceId: traceId!, parentSpanId: parentSpanId!, flags: flags! };
}

/** This service's part of the trace: the caller's trace continued, or a new sampled one. */
export function continueTrace(header: string | null | undefined): TraceContext {
  const parent = parseTraceparent(header);
  if (parent)
    return { traceId: parent.traceId, spanId: newSpanId(), parentSpanId: parent.parentSpanId, flags: parent.flags };
  return { traceId: randomHex(16), spanId: newSpanId(), parentSpanId: null, flags: '01' };
}

/** The header to send on a call made within `trace`: this service's span is the callee's parent. */
export function traceparentOf(trace: Pick<TraceContext, 'traceId' | 'spanId' | 'flags'>): string {
  return `00-${trace.traceId}-${trace.spanId}-${trace.flags}`;
}

/** Log fields, named as OpenTelemetry's log data model names them. */
export function traceLogFields(trace: TraceContext): { trace_id: string; span_id: string; parent_span_id?: string } {
  return trace.parentSpanId
    ? { trace_id: trace.traceId, span_id: trace.spanId, parent_span_id: trace.parentSpanId }
    : { trace_id: trace.traceId, span_id: trace.spanId };
}
