/**
 * An OpenAPI 3.1 document from zod schemas and a plain list of operations: what each route reads
 * and answers, with the error codes each status carries (`x-error-codes`). zod writes the JSON
 * Schemas itself (`z.toJSONSchema`): request bodies as the route reads them, answers as the code
 * writes them. Used by the core for its own API (core/src/openapi/) and by the edge's description
 * (edge/scripts/openapi/).
 */
import { z } from 'zod';

export type HeaderName = 'Retry-After' | 'X-Request-Id' | 'Location' | 'Idempotent-Replayed' | 'Warning';

export interface Answer<S extends string> {
  description: string;
  schema?: S | { array: S };
  /** Error codes this status carries on this route (the body is then always Error). */
  codes?: string[];
  headers?: HeaderName[];
  contentType?: string;
}

export interface Operation<S extends string, T extends string, Sec extends string> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  summary: string;
  /** Longer prose; when absent the description says who may call and what is refused. */
  description?: string;
  tag: T;
  /** Several: any one of them will do. */
  security?: Sec | Sec[];
  body?: S;
  bodyRequired?: boolean;
  headers?: { name: string; required: boolean; description: string }[];
  query?: { name: string; required: boolean; description: string; schema: object }[];
  responses: Record<number, Answer<S>>;
}

export const HEADER_DOCS: Record<HeaderName, { description: string; required: boolean; schema: object }> = {
  'Retry-After': {
    description: 'Seconds to wait before trying again',
    required: true,
    schema: { type: 'string', pattern: '^\\d+$' },
  },
  'X-Request-Id': { description: 'The request id, echoed (or made up)', required: true, schema: { type: 'string' } },
  Location: { description: 'Where the created resource is read', required: true, schema: { type: 'string' } },
  'Idempotent-Replayed': {
    description: '"true" when this is the stored answer to an earlier request with the same key',
    required: false,
    schema: { type: 'string', enum: ['true'] },
  },
  Warning: {
    description: '110 "Response is stale" when served from cache',
    required: false,
    schema: { type: 'string' },
  },
};

/** zod spells out ISO 8601 as a long regex beside `format: date-time`; the format says it. */
function dropDateTimePatterns(node: unknown): void {
  if (Array.isArray(node)) {
    node.forEach(dropDateTimePatterns);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const record = node as Record<string, unknown>;
  if (record.format === 'date-time') delete record.pattern;
  Object.values(record).forEach(dropDateTimePatterns);
}

function componentJsonSchemas(
  components: Record<string, z.ZodType>,
  requestNames: ReadonlySet<string>,
): Record<string, object> {
  const build = (io: 'input' | 'output', names: string[]) => {
    const registry = z.registry<{ id: string }>();
    for (const name of names) registry.add(components[name]!, { id: name });
    const { schemas } = z.toJSONSchema(registry, {
      target: 'draft-2020-12',
      io,
      unrepresentable: 'any',
      uri: (id) => `#/components/schemas/${id}`,
    });
    for (const schema of Object.values(schemas)) {
      delete (schema as Record<string, unknown>).$schema;
      delete (schema as Record<string, unknown>).$id;
      dropDateTimePatterns(schema);
    }
    return schemas as Record<string, object>;
  };
  const names = Object.keys(components);
  return {
    ...build(
      'output',
      names.filter((n) => !requestNames.has(n)),
    ),
    ...build(
      'input',
      names.filter((n) => requestNames.has(n)),
    ),
  };
}

export interface DocumentInput<S extends string, T extends string, Sec extends string> {
  info: { title: string; version: string; description: string };
  servers: { url: string; description: string }[];
  tags: { name: T; description: string }[];
  components: Record<S, z.ZodType>;
  /** Components that are request bodies (described as the route reads them). */
  requests: S[];
  operations: Operation<S, T, Sec>[];
  pathParameters: Record<string, { description: string; schema: object }>;
  securitySchemes: Record<Sec, object>;
  /**
   * Answers every operation of a kind can give whatever its route (the body limit on every
   * method, the media type of any JSON body, the operator lockout): merged into each
   * operation's own, codes joined, so no operation can forget one.
   */
  commonAnswers?: (operation: Operation<S, T, Sec>) => Record<number, Answer<S>>;
}

/** The operation's answers with the common ones merged in (an error code listed twice once). */
function withCommonAnswers<S extends string, T extends string, Sec extends string>(
  op: Operation<S, T, Sec>,
  common: DocumentInput<S, T, Sec>['commonAnswers'],
): Record<number, Answer<S>> {
  const merged: Record<number, Answer<S>> = { ...op.responses };
  for (const [key, answer] of Object.entries(common?.(op) ?? {}) as [string, Answer<S>][]) {
    const status = Number(key);
    const own = merged[status];
    if (!own) {
      merged[status] = answer;
      continue;
    }
    if (!own.codes || !answer.codes) continue; // a success keeps its own description
    merged[status] = {
      ...own,
      codes: [...new Set([...own.codes, ...answer.codes])],
      headers: [...new Set([...(own.headers ?? []), ...(answer.headers ?? [])])],
    };
  }
  return merged;
}

/** Who may call and what is refused, from the operation itself. */
function describeOperation<S extends string>(
  summary: string,
  security: string[],
  responses: Record<number, Answer<S>>,
): string {
  const who =
    security.length === 0
      ? 'Public: no credentials.'
      : `Credentials: ${security.join(' or ')} (see the security schemes).`;
  const refusals = Object.entries(responses)
    .filter(([status]) => Number(status) >= 400)
    .map(([status, answer]) => `${status}${answer.codes ? ` (${answer.codes.join(', ')})` : ''}`);
  return `${summary}. ${who}${refusals.length > 0 ? ` Refusals: ${refusals.join('; ')}.` : ''}`;
}

/** The whole document, deterministic (same input, same bytes). */
export function buildOpenApi<S extends string, T extends string, Sec extends string>(input: DocumentInput<S, T, Sec>) {
  const ref = (name: S) => ({ $ref: `#/components/schemas/${name}` });
  const answerObject = (answer: Answer<S>) => {
    const schema =
      answer.schema === undefined
        ? undefined
        : typeof answer.schema === 'string'
          ? ref(answer.schema)
          : { type: 'array', items: ref(answer.schema.array) };
    const description = answer.codes ? `${answer.description}. Codes: ${answer.codes.join(', ')}.` : answer.description;
    const headers = Object.fromEntries(
      (['X-Request-Id', ...(answer.headers ?? [])] as HeaderName[]).map((name) => [
        name,
        { $ref: `#/components/headers/${name}` },
      ]),
    );
    return {
      description,
      headers,
      ...(schema
        ? { content: { [answer.contentType ?? 'application/json']: { schema } } }
        : answer.contentType
          ? { content: { [answer.contentType]: { schema: { type: 'string' } } } }
          : {}),
      ...(answer.codes ? { 'x-error-codes': answer.codes } : {}),
    };
  };
  const paths: Record<string, Record<string, unknown>> = {};
  const usedHeaders = new Set<HeaderName>(['X-Request-Id']);
  for (const op of input.operations) {
    const responses = withCommonAnswers(op, input.commonAnswers);
    for (const answer of Object.values(responses)) for (const name of answer.headers ?? []) usedHeaders.add(name);
    const security = op.security ? [op.security].flat() : [];
    const params = [...op.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
      name,
      in: 'path',
      required: true,
      ...input.pathParameters[name!],
    }));
    const headers = (op.headers ?? []).map((h) => ({
      name: h.name,
      in: 'header',
      required: h.required,
      description: h.description,
      schema: { type: 'string' },
    }));
    const query = (op.query ?? []).map((q) => ({
      name: q.name,
      in: 'query',
      required: q.required,
      description: q.description,
      schema: q.schema,
    }));
    const parameters = [...params, ...query, ...headers];
    (paths[op.path] ??= {})[op.method] = {
      operationId: `${op.method}${op.path
        .replace(/\{(\w+)\}/g, 'By-$1')
        .split(/[^a-zA-Z0-9]+/)
        .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
        .join('')}`,
      summary: op.summary,
      description: op.description ?? describeOperation(op.summary, security, responses),
      tags: [op.tag],
      ...(parameters.length > 0 ? { parameters } : {}),
      // An empty list says "public" outright (a description with no global security would
      // otherwise leave it unsaid).
      security: security.map((name) => ({ [name]: [] })),
      ...(op.body
        ? {
            requestBody: {
              required: op.bodyRequired ?? true,
              content: { 'application/json': { schema: ref(op.body) } },
            },
          }
        : {}),
      responses: Object.fromEntries(
        Object.entries(responses).map(([status, answer]) => [status, answerObject(answer as Answer<S>)]),
      ),
    };
  }
  return {
    openapi: '3.1.0',
    info: input.info,
    servers: input.servers,
    tags: input.tags,
    paths,
    components: {
      schemas: componentJsonSchemas(input.components, new Set(input.requests)),
      // Only the headers some answer carries (an unused component is noise to a reader and a linter).
      headers: Object.fromEntries(Object.entries(HEADER_DOCS).filter(([name]) => usedHeaders.has(name as HeaderName))),
      securitySchemes: input.securitySchemes,
    },
  };
}
