/**
 * A contract fuzz: for every operation of an OpenAPI document, bad inputs built from the
 * operation itself (its path ids, query, headers, security and a valid body to spoil) are
 * sent over a real socket, and every answer is held to the document: never a 5xx, the status
 * is one the operation lists, the JSON body validates against the documented schema, an error
 * code is one that status lists. `tableFingerprint` lets the caller check that a refusal wrote
 * no row. Inputs come from a seeded generator (CONTRACT_FUZZ_SEED), so a failure replays.
 */
import { request as httpRequest } from 'node:http';
import Ajv2020Module from 'ajv/dist/2020.js';
import type { Sql } from 'postgres';
import { textDefect } from '../../lib/json-guard';

interface DocAnswer {
  headers?: Record<string, { $ref: string }>;
  content?: Record<string, { schema: object }>;
  'x-error-codes'?: string[];
}
interface DocParameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema?: { type?: string; enum?: string[]; minimum?: number; maximum?: number };
}
export interface DocOperation {
  parameters?: DocParameter[];
  security?: Record<string, string[]>[];
  requestBody?: { content: Record<string, { schema: { $ref?: string } }> };
  responses: Record<string, DocAnswer>;
}
export interface FuzzDocument {
  paths: Record<string, Record<string, DocOperation>>;
  components: { schemas: Record<string, object>; headers?: Record<string, { required?: boolean }> };
}

export interface FuzzCase {
  label: string;
  method: string;
  template: string;
  /** The path with its ids filled in, and the query string (with its `?`, or empty). */
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** The only statuses this case may get (a JSON route's answer to another media type is 415, always). */
  expectStatus?: number[];
}

export interface FuzzAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: unknown;
}

/** What the fuzz knows of a running service: real ids to reach past lookups, credentials, valid bodies. */
export interface FuzzContext {
  /** A real value for each path parameter (by name), so a case fails on what it spoils, not on the id. */
  params: Record<string, string>;
  /** A well-formed value that names nothing, per path parameter. */
  unknownParams: Record<string, string>;
  /** Headers that satisfy each security scheme. */
  credentials: Record<string, Record<string, string>>;
  /** A valid body per request schema name (components/schemas/<name>). */
  bodies: Record<string, unknown>;
  /** Headers every call of an operation needs to get past its own checks (Idempotency-Key…), by `METHOD template`. */
  extraHeaders?: Record<string, Record<string, string>>;
  /** Headers every call needs (a service's own credential, beside the caller's). */
  commonHeaders?: Record<string, string>;
  /**
   * Operations (`METHOD template`) answered before any body is looked at, so a body past the
   * limit is neither read nor refused there (a load balancer's probe): they may answer as usual.
   */
  bodyNeverRead?: string[];
}

/** mulberry32: small, seeded, good enough to choose inputs. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const ONE_MEGABYTE = 1024 * 1024;
const DEEP_ARRAY = `${'['.repeat(5000)}${']'.repeat(5000)}`;
const WRONG_VALUES: unknown[] = [null, 12345, -1, 1.5, 'text', true, [], {}, 'x'.repeat(10_000)];
/** Text that parses as a string but breaks code that trusts it: URLs, paths, escapes, control and bidi characters. */
const HOSTILE_TEXT = ['', ' ', 'http://[', '//evil.example/x', '../../etc', '%zz', '\u202e', '\t\n', '{{x}}', "'; --"];
const MALFORMED_IDS = ['abc', '0', '-1', '1.5', '1e3', 'x'.repeat(300), '%00', '%ED%A0%80', '%zz', '%', 'a%2Fb'];
const MALFORMED_QUERY_VALUES = ['abc', '', '-1', '1.5', '99999999999999999999', '%00', '%ED%A0%80', '%zz'];

type JsonPath = (string | number)[];

/** Every node below the root, with its path (objects' keys and arrays' indexes). */
function nodes(value: unknown, path: JsonPath = []): { path: JsonPath; value: unknown }[] {
  const found: { path: JsonPath; value: unknown }[] = path.length > 0 ? [{ path, value }] : [];
  if (Array.isArray(value)) value.forEach((item, i) => found.push(...nodes(item, [...path, i])));
  else if (value && typeof value === 'object')
    for (const [key, item] of Object.entries(value)) found.push(...nodes(item, [...path, key]));
  return found;
}

function setAt(root: unknown, path: JsonPath, replacement: unknown): unknown {
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let at: Record<string | number, unknown> = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  at[path.at(-1)!] = replacement;
  return copy;
}

const kind = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

function pick<T>(items: T[], count: number, random: () => number): T[] {
  const pool = [...items];
  const chosen: T[] = [];
  while (pool.length > 0 && chosen.length < count) chosen.push(pool.splice(Math.floor(random() * pool.length), 1)[0]!);
  return chosen;
}

/**
 * The bad inputs for one operation. `runs` scales the randomly chosen ones (wrong types, malformed
 * ids and query values); the fixed ones (depth, NUL, lone surrogates, content types, a body past
 * the limit on every method, unknown ids, missing credentials) are always there.
 */
export function casesFor(
  method: string,
  template: string,
  operation: DocOperation,
  context: FuzzContext,
  random: () => number,
  runs: number,
): FuzzCase[] {
  const parameters = operation.parameters ?? [];
  const pathParams = parameters.filter((p) => p.in === 'path');
  const queryParams = parameters.filter((p) => p.in === 'query');
  const headerParams = parameters.filter((p) => p.in === 'header');
  const scheme = operation.security?.[0] ? Object.keys(operation.security[0])[0] : undefined;
  const auth = scheme ? (context.credentials[scheme] ?? {}) : {};
  const extra = { ...context.commonHeaders, ...context.extraHeaders?.[`${method.toUpperCase()} ${template}`] };
  const fill = (overrides: Record<string, string> = {}) =>
    template.replace(/\{(\w+)\}/g, (_, name: string) => overrides[name] ?? context.params[name] ?? 'missing');
  const bodyRef = operation.requestBody?.content['application/json']?.schema.$ref;
  const bodyName = bodyRef?.split('/').at(-1);
  const baseline = bodyName ? (context.bodies[bodyName] ?? {}) : undefined;
  const jsonHeaders = { ...auth, ...extra, 'content-type': 'application/json' };
  const cases: FuzzCase[] = [];
  const add = (label: string, overrides: Partial<FuzzCase>) =>
    cases.push({
      label,
      method: method.toUpperCase(),
      template,
      path: fill(),
      headers: baseline === undefined ? { ...auth, ...extra } : jsonHeaders,
      ...(baseline === undefined ? {} : { body: JSON.stringify(baseline) }),
      ...overrides,
    });
  const withBody = (label: string, body: unknown) => add(label, { body: JSON.stringify(body) });

  // Every method may carry a body past the limit, DELETE and GET included: refused, 413.
  const neverRead = context.bodyNeverRead?.includes(`${method.toUpperCase()} ${template}`);
  add('a 1 MB body', {
    headers: { ...auth, ...extra, 'content-type': 'application/json' },
    body: Buffer.alloc(ONE_MEGABYTE, 0x20),
    ...(neverRead ? {} : { expectStatus: [413] }),
  });
  if (scheme) {
    add('no credentials', {
      headers: baseline === undefined ? { ...extra } : { ...extra, 'content-type': 'application/json' },
    });
    add('a credential that is not one', {
      headers: {
        ...(baseline === undefined ? {} : { 'content-type': 'application/json' }),
        ...extra,
        ...(scheme === 'queue' ? { 'x-queue-token': 'not-a-token' } : { authorization: 'Bearer not-a-token' }),
      },
    });
  }
  for (const param of pathParams) {
    add(`unknown ${param.name}`, { path: fill({ [param.name]: context.unknownParams[param.name] ?? '999999999' }) });
    for (const bad of pick(MALFORMED_IDS, Math.max(3, runs), random))
      add(`malformed ${param.name} ${JSON.stringify(bad)}`, { path: fill({ [param.name]: bad }) });
  }
  for (const param of queryParams) {
    for (const bad of pick(MALFORMED_QUERY_VALUES, Math.max(3, runs), random))
      add(`query ${param.name}=${JSON.stringify(bad)}`, {
        path: `${fill()}?${param.name}=${bad}`,
        ...(fitsQuerySchema(bad, param.schema) ? {} : { expectStatus: [422] }),
      });
    // Which of two values counts is anyone's guess: refused, like any other ambiguous input.
    add(`query ${param.name} twice`, { path: `${fill()}?${param.name}=1&${param.name}=2`, expectStatus: [422] });
  }
  for (const header of headerParams) {
    const others = Object.fromEntries(
      Object.entries(baseline === undefined ? { ...auth, ...extra } : jsonHeaders).filter(
        ([name]) => name.toLowerCase() !== header.name.toLowerCase(),
      ),
    );
    add(`header ${header.name} missing`, { headers: others });
    add(`header ${header.name} too long`, { headers: { ...others, [header.name]: 'x'.repeat(1000) } });
    add(`header ${header.name} empty`, { headers: { ...others, [header.name]: '' } });
  }
  if (baseline === undefined) return cases;

  // The body: its media type, its syntax, its depth, its text, its shape.
  for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', null]) {
    const headers: Record<string, string> = { ...auth, ...extra };
    if (contentType) headers['content-type'] = contentType;
    add(`content type ${contentType ?? 'absent'}`, { headers, expectStatus: [415] });
  }
  add('malformed JSON', { body: '{"unterminated' });
  add('empty body', { body: '' });
  add('arrays nested 5,000 deep', { body: DEEP_ARRAY });
  add('an object holding arrays nested 5,000 deep', { body: `{"a":${DEEP_ARRAY}}` });
  for (const root of [[], 'text', 1, null, true]) withBody(`root ${kind(root)}`, root);
  withBody('an unknown field', { ...(baseline as object), unknownField: 1 });
  withBody('a field name with NUL', { ...(baseline as object), 'a\u0000b': 1 });
  const all = nodes(baseline);
  for (const { path, value } of all) {
    if (typeof value === 'string') {
      withBody(`NUL in ${path.join('.')}`, setAt(baseline, path, `${value}\u0000`));
      withBody(`lone high surrogate in ${path.join('.')}`, setAt(baseline, path, `${value}\ud800`));
      withBody(`lone low surrogate in ${path.join('.')}`, setAt(baseline, path, `\udc00${value}`));
      for (const hostile of pick(HOSTILE_TEXT, Math.max(2, runs), random))
        withBody(`${path.join('.')} as ${JSON.stringify(hostile)}`, setAt(baseline, path, hostile));
    }
  }
  if (baseline && typeof baseline === 'object' && !Array.isArray(baseline))
    for (const key of Object.keys(baseline)) {
      const { [key]: _dropped, ...rest } = baseline as Record<string, unknown>;
      withBody(`missing ${key}`, rest);
    }
  // Random JSON built from the body's own field names, so some of it reaches the schema's rules.
  const names = [...new Set(all.map(({ path }) => path.at(-1)).filter((k): k is string => typeof k === 'string'))];
  for (let i = 0; i < runs; i++) withBody(`random body ${i + 1}`, randomJson(random, names, 0));
  for (const { path, value } of all) {
    const wrong = WRONG_VALUES.filter((candidate) => kind(candidate) !== kind(value));
    for (const replacement of pick(wrong, Math.max(2, Math.ceil(runs / 2)), random))
      withBody(
        `${path.join('.')} as ${kind(replacement)}${typeof replacement === 'string' && replacement.length > 100 ? ' (10 KB)' : ''}`,
        setAt(baseline, path, replacement),
      );
  }
  return cases;
}

const RANDOM_TEXT = ['', 'A1', 'STANDARD', '\u0000', '\ud800', '\udc00', 'é', '😀', ' ', 'x'.repeat(300), '1', 'null'];

/** A random JSON value, at most 4 levels deep, with keys from `names` (and a stranger now and then). */
function randomJson(random: () => number, names: string[], depth: number): unknown {
  const roll = random();
  if (depth < 4 && roll < 0.3) {
    const object: Record<string, unknown> = {};
    const size = Math.floor(random() * 4);
    for (let i = 0; i < size; i++) {
      const key = names.length > 0 && random() < 0.8 ? names[Math.floor(random() * names.length)]! : `k${i}`;
      object[key] = randomJson(random, names, depth + 1);
    }
    return object;
  }
  if (depth < 4 && roll < 0.45)
    return Array.from({ length: Math.floor(random() * 4) }, () => randomJson(random, names, depth + 1));
  if (roll < 0.65) return RANDOM_TEXT[Math.floor(random() * RANDOM_TEXT.length)];
  if (roll < 0.85) return [0, 1, -1, 2 ** 31, 2 ** 53, 1.5, -0.5, 1e21][Math.floor(random() * 8)];
  return [true, false, null][Math.floor(random() * 3)];
}

/** Whether a raw query value is one the parameter's schema takes (as the route should read it). */
function fitsQuerySchema(raw: string, schema: DocParameter['schema'] = {}): boolean {
  let value: string;
  try {
    value = decodeURIComponent(raw);
  } catch {
    return false;
  }
  if (schema.enum) return schema.enum.includes(value);
  if (schema.type === 'integer') {
    if (!/^-?\d{1,15}$/.test(value)) return false;
    const n = Number(value);
    return n >= (schema.minimum ?? -Infinity) && n <= (schema.maximum ?? Infinity);
  }
  // A free string: text the database cannot store is still refused.
  return textDefect(value) === null;
}

/** Sends a case over a real socket (any method may carry a body; nothing is normalised). */
export function send(baseUrl: string, fuzzCase: FuzzCase): Promise<FuzzAnswer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...fuzzCase.headers };
    if (fuzzCase.body !== undefined) headers['content-length'] = Buffer.byteLength(fuzzCase.body);
    const req = httpRequest(
      { host: url.hostname, port: url.port, method: fuzzCase.method, path: fuzzCase.path, headers, agent: false },
      (res) => {
        // A stream (server-sent events) is judged by its head: it never ends by itself.
        if ((res.headers['content-type'] ?? '').includes('text/event-stream')) {
          res.destroy();
          return resolve({ status: res.statusCode ?? 0, headers: res.headers, text: '', json: null });
        }
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => {
          let json: unknown = null;
          try {
            json = text ? JSON.parse(text) : null;
          } catch {
            json = null;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      },
    );
    let answered = false;
    req.on('response', () => (answered = true));
    // A server that refuses a large body may close the connection before it is all sent.
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (answered || error.code === 'EPIPE' || error.code === 'ECONNRESET') return;
      reject(error);
    });
    if (fuzzCase.body !== undefined) req.end(fuzzCase.body);
    else req.end();
  });
}

/**
 * What is wrong with an answer, as the document sees it (empty when nothing is): a 5xx, a
 * status the operation does not list, a body its schema refuses, an error code not listed.
 */
export function answerChecker(doc: FuzzDocument) {
  const Ajv2020 = (Ajv2020Module as unknown as { default?: typeof Ajv2020Module }).default ?? Ajv2020Module;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addFormat('date-time', { type: 'string', validate: (value: string) => !Number.isNaN(Date.parse(value)) });
  ajv.addFormat('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
  ajv.addFormat('uri', { type: 'string', validate: (value: string) => URL.canParse(value) });
  ajv.addSchema({ $id: 'fuzzed', components: { schemas: doc.components.schemas } });

  return function problemsOf(method: string, template: string, answer: FuzzAnswer): string[] {
    const problems: string[] = [];
    if (answer.status >= 500) problems.push(`answered ${answer.status}`);
    const documented = doc.paths[template]?.[method.toLowerCase()]?.responses[String(answer.status)];
    if (!documented) return [...problems, `status ${answer.status} is not documented`];
    for (const [name, header] of Object.entries(documented.headers ?? {})) {
      const required = doc.components.headers?.[header.$ref.split('/').at(-1)!]?.required;
      if (required && answer.headers[name.toLowerCase()] === undefined) problems.push(`header ${name} missing`);
    }
    const json = documented.content?.['application/json'];
    if (json) {
      const schema = JSON.parse(JSON.stringify(json.schema).replaceAll('"#/components', '"fuzzed#/components'));
      if (answer.json === null) problems.push('the body is not JSON');
      else if (!ajv.validate(schema, answer.json)) problems.push(`body: ${ajv.errorsText(ajv.errors)}`);
    }
    const codes = documented['x-error-codes'];
    const code = (answer.json as { error?: { code?: string } } | null)?.error?.code;
    if (codes && !codes.includes(code ?? '')) problems.push(`error code ${code} is not listed for ${answer.status}`);
    return problems;
  };
}

/**
 * A fingerprint of every table's rows (count and a hash of each row's text), so a refusal that
 * wrote anything shows. Partitions are read through their parents; `skip` names tables that
 * something other than the request under test writes (a background job).
 */
export async function tableFingerprint(sql: Sql, skip: readonly string[] = []): Promise<Record<string, string>> {
  const tables = await sql<{ name: string }[]>`
    SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition
       AND c.relname <> ALL(${sql.array([...skip, 'schema_migrations'])}::text[])
     ORDER BY c.relname`;
  const parts = tables.map(
    ({ name }) =>
      `SELECT '${name}' AS name, count(*)::text || ':' || coalesce(sum(hashtextextended(t::text, 0)), 0)::text AS print FROM "${name}" t`,
  );
  // Whole tables, read in whatever order is cheapest: the planner's own choice, not the core's
  // index-first sessions (core/src/db/connect.ts), under which a fingerprint read every table
  // through an index and the fuzz ran out of time.
  const rows = await sql.begin(async (tx) => {
    await tx`SET LOCAL enable_seqscan = on`;
    return tx.unsafe<{ name: string; print: string }[]>(parts.join(' UNION ALL '));
  });
  return Object.fromEntries(rows.map((row) => [row.name, row.print]));
}

/** Tables whose fingerprint differs. */
export function changedTables(before: Record<string, string>, after: Record<string, string>): string[] {
  return Object.keys({ ...before, ...after }).filter((name) => before[name] !== after[name]);
}
