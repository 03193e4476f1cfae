import type { Context, ErrorHandler, MiddlewareHandler, NotFoundHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import type { ZodType } from 'zod';
import { AppError, errorResponseBody, isAppError, unprocessable } from './errors';
import { parseSafeJson, textDefect } from './json-guard';

/** Answers an AppError as JSON with its status and, when set, Retry-After. */
export function respondWithError(c: Context, error: AppError): Response {
  const headers: Record<string, string> = {};
  if (error.retryAfterSeconds !== null) headers['Retry-After'] = String(error.retryAfterSeconds);
  return c.json(errorResponseBody(error), error.status as 400, headers);
}

/**
 * The one place where anything thrown becomes HTTP. Unknown errors are logged and answered
 * 500 without internals; `onUnexpected` lets the service log with its request logger.
 */
export function createErrorHandler(
  onUnexpected: (error: unknown, c: Context) => void,
  /** Turns infrastructure errors the service understands (a database outage) into AppErrors. */
  translate: (error: unknown) => unknown = (error) => error,
): ErrorHandler {
  return function errorHandler(thrown, c) {
    const error = translate(thrown);
    if (isAppError(error)) return respondWithError(c, error);
    if (error instanceof HTTPException) {
      const status = error.status;
      const code = status === 413 ? 'PAYLOAD_TOO_LARGE' : status === 401 ? 'UNAUTHORIZED' : 'HTTP_ERROR';
      return respondWithError(c, new AppError(status, code, error.message || 'Request refused'));
    }
    onUnexpected(thrown, c);
    return respondWithError(c, new AppError('INTERNAL', 'Unexpected server error'));
  };
}

export const notFoundHandler: NotFoundHandler = (c) =>
  respondWithError(c, new AppError('ROUTE_NOT_FOUND', `No route for ${c.req.method} ${c.req.path}`));

/**
 * Refuses bodies over `maxBytes` with 413 before they are buffered, whatever the method: a
 * DELETE or GET may carry a body too, and nothing downstream must ever buffer one past the
 * limit. Reads that carry no body (no Content-Length, no Transfer-Encoding: every cheap GET)
 * skip it entirely: looking at the body stream makes @hono/node-server build a full Request
 * object, which costs more than the rest of a cheap GET. Any other method without a declared
 * length is counted as it arrives (a request built in process may have neither header).
 *
 * Served by @hono/node-server, the request is Node's own message (`c.env.incoming`), and its
 * parser has already decided the framing: without Content-Length or Transfer-Encoding there is
 * no body at all, whatever the method (a DELETE cancelling a hold), and a chunked body is
 * counted straight off the socket stream. Both skip the web-stream Request, AbortSignal and
 * reader that hono's bodyLimit needs, which cost a cheap DELETE more than its routing.
 */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function jsonBodyLimit(maxBytes: number): MiddlewareHandler {
  const tooLarge = () => new AppError('PAYLOAD_TOO_LARGE', `Request body exceeds ${maxBytes} bytes`);
  const limit = bodyLimit({ maxSize: maxBytes, onError: (c) => respondWithError(c, tooLarge()) });
  return async function jsonBodyLimitMiddleware(c, next) {
    const incoming = nodeIncoming(c);
    const declaredHeader = incoming ? incoming.headers['content-length'] : c.req.header('content-length');
    if (declaredHeader !== undefined) {
      // A declared length is enforced by the HTTP parser itself: checking it is enough, and
      // leaves the body stream unwrapped (wrapping it costs a full Request on Node).
      const declared = Number(declaredHeader);
      if (!Number.isFinite(declared) || declared > maxBytes) return respondWithError(c, tooLarge());
      return next();
    }
    if (incoming) {
      if (incoming.headers['transfer-encoding'] === undefined) return next();
      // A GET or HEAD body is never read (its web Request has none): hono's bodyLimit let it
      // through unread, and so does this.
      if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
      const body = await readIncomingBody(incoming, maxBytes);
      if (body === null) return respondWithError(c, tooLarge());
      // @hono/node-server answers c.req.text()/json()/body from `rawBody` when it is set.
      incoming.rawBody = body;
      return next();
    }
    if (READS.has(c.req.method) && c.req.header('transfer-encoding') === undefined) return next();
    return limit(c, next); // chunked: count the bytes as they arrive
  };
}

/** What jsonBodyLimit uses of Node's IncomingMessage (duck-typed: this module runs in Workers too). */
interface IncomingBody {
  headers: Record<string, string | string[] | undefined>;
  readableEnded: boolean;
  rawBody?: Buffer;
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  on(event: 'end' | 'close', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  off(event: string, listener: (...args: never[]) => void): unknown;
  pause(): unknown;
}

function nodeIncoming(c: Context): IncomingBody | null {
  const incoming = (c.env as { incoming?: Partial<IncomingBody> } | undefined)?.incoming;
  return incoming && typeof incoming.headers === 'object' && typeof incoming.on === 'function'
    ? (incoming as IncomingBody)
    : null;
}

/**
 * The whole body, or null as soon as more than `maxBytes` has arrived (the rest is left unread,
 * as hono's bodyLimit leaves it; @hono/node-server drains or closes it after the answer).
 */
function readIncomingBody(incoming: IncomingBody, maxBytes: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (finish: () => void) => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
      incoming.off('close', onClose);
      finish();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        incoming.pause();
        settle(() => resolve(null));
      } else chunks.push(chunk);
    };
    const onEnd = () => settle(() => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    const onError = (error: Error) => settle(() => reject(error));
    const onClose = () =>
      incoming.readableEnded ? onEnd() : settle(() => reject(new Error('Client connection prematurely closed.')));
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onError);
    incoming.on('close', onClose);
  });
}

/**
 * Reads and validates a JSON body: 415 for another media type, 400 for malformed JSON,
 * 422 (with the failing paths) for well-formed JSON of the wrong shape, nested too deep, or
 * with text PostgreSQL cannot store (json-guard.ts). `accept`, when given, is a hand-written
 * check of the route's commonest body that returns exactly what `schema` would, or null to let
 * `schema` judge (and explain a refusal): for a hot route where zod costs more than routing.
 */
export async function readJsonBody<T>(c: Context, schema: ZodType<T>, accept?: (raw: unknown) => T | null): Promise<T> {
  requireJsonContentType(c);
  const raw = parseSafeJson(await c.req.text());
  return accept?.(raw) ?? parseWith(schema, raw);
}

const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json\b/i;

/**
 * 415 unless the body is declared JSON (application/json or application/<x>+json). Every route
 * that reads a JSON body calls it before reading, so a form or text body is refused the same way
 * everywhere, whatever the body would have parsed as.
 */
export function requireJsonContentType(c: Context): void {
  if (!JSON_MEDIA_TYPE.test(c.req.header('content-type') ?? '')) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json');
  }
}

/**
 * The one value of a query parameter, or undefined when absent; 422 when it is given twice
 * (which of the two counts would be a guess) or holds text that cannot be stored (NUL, a lone
 * surrogate). Routes validate the value itself with parseWith.
 */
export function singleQueryValue(c: Context, name: string): string | undefined {
  const values = c.req.queries(name) ?? [];
  if (values.length > 1)
    throw unprocessable('VALIDATION_FAILED', `${name}: give it once`, {
      issues: [{ path: name, message: 'given more than once' }],
    });
  const value = values[0];
  const defect = value === undefined ? null : textDefect(value);
  if (defect)
    throw unprocessable('VALIDATION_FAILED', `${name}: ${defect}`, { issues: [{ path: name, message: defect }] });
  return value;
}

/** Validates any value (body, params, query) and turns a failure into a 422 naming the fields. */
export function parseWith<T>(schema: ZodType<T>, raw: unknown): T {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const issues = result.error.issues.slice(0, 10).map((issue) => ({
    path: issue.path.map(String).join('.') || '(root)',
    message: issue.message,
  }));
  throw unprocessable('VALIDATION_FAILED', issues.map((i) => `${i.path}: ${i.message}`).join('; '), { issues });
}

const BEARER = /^Bearer\s+([A-Za-z0-9._~+/=-]{1,4096})\s*$/i;

/** The token of `Authorization: Bearer <token>` (RFC 6750 characters), or null. */
export function bearerToken(c: Context): string | null {
  return bearerTokenOf(c.req.header('authorization'));
}

/** The same, from the header's raw value (Node's fast paths read it off node:http). */
export function bearerTokenOf(header: string | undefined): string | null {
  if (!header) return null;
  const match = BEARER.exec(header);
  return match ? match[1]! : null;
}

const INCOMING_REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * The caller's X-Request-Id when it looks sane (a load balancer's, the edge's), else null, so
 * one id follows a buyer across the services without letting junk into the logs.
 */
export function incomingRequestId(value: string | string[] | undefined): string | null {
  return typeof value === 'string' && INCOMING_REQUEST_ID.test(value) ? value : null;
}
