/**
 * Holds real answers to an OpenAPI document: the operation exists, the status is documented,
 * required headers are there, the body validates against the documented schema (ajv, JSON
 * Schema 2020-12) and an error code is one the status lists. Used by the edge's and the core's
 * contract tests; `exercised` collects `method path status` for their coverage checks.
 */
import Ajv2020Module from 'ajv/dist/2020.js';
import { expect } from 'vitest';
import { callJson, fetchFrom, type JsonCallInit, type JsonResult } from './json-call';

interface Answer {
  headers?: Record<string, { $ref: string }>;
  content?: Record<string, { schema: object }>;
  'x-error-codes'?: string[];
}
export interface ApiDocument {
  paths: Record<string, Record<string, { responses: Record<string, Answer> }>>;
  components: { schemas: Record<string, object>; headers: Record<string, { required: boolean }> };
}

export function openApiConformance(doc: ApiDocument, schemaId: string) {
  // ajv is CommonJS: under Node's ESM loader the class is on .default, under a bundler it is the import itself.
  const Ajv2020 = (Ajv2020Module as unknown as { default?: typeof Ajv2020Module }).default ?? Ajv2020Module;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addFormat('date-time', {
    type: 'string',
    validate: (value: string) =>
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(value) && !Number.isNaN(Date.parse(value)),
  });
  ajv.addFormat('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
  ajv.addFormat('uri', { type: 'string', validate: (value: string) => URL.canParse(value) });
  ajv.addSchema({ $id: schemaId, components: { schemas: doc.components.schemas } });
  const exercised = new Set<string>();

  function conforms(method: string, template: string, result: JsonResult) {
    const where = `${method.toUpperCase()} ${template} → ${result.status} ${result.text.slice(0, 300)}`;
    const operation = doc.paths[template]?.[method];
    expect(operation, `${method} ${template} is not in the document`).toBeDefined();
    const answer = operation!.responses[String(result.status)];
    expect(answer, `undocumented status: ${where}`).toBeDefined();
    for (const [name, header] of Object.entries(answer!.headers ?? {})) {
      const required = doc.components.headers[header.$ref.split('/').at(-1)!]?.required;
      if (required) expect(result.headers.get(name), `header ${name} missing: ${where}`).not.toBeNull();
    }
    const json = answer!.content?.['application/json'];
    if (json) {
      const ref = (json.schema as { $ref?: string; items?: { $ref: string } }).$ref;
      const schema = ref
        ? { $ref: `${schemaId}${ref}` }
        : { type: 'array', items: { $ref: `${schemaId}${(json.schema as { items: { $ref: string } }).items.$ref}` } };
      const valid = ajv.validate(schema, result.json);
      expect(valid, `${ajv.errorsText(ajv.errors)}: ${where}`).toBe(true);
    } else if (result.status === 204) {
      expect(result.text).toBe('');
    }
    if (answer!['x-error-codes'])
      expect(answer!['x-error-codes'], `undocumented error code: ${where}`).toContain(result.json?.error?.code);
    exercised.add(`${method} ${template} ${result.status}`);
  }

  /** Calls `baseUrl` on the document's operation `method template` and holds the answer to it. */
  async function call(
    baseUrl: string,
    method: string,
    template: string,
    params: Record<string, string | number>,
    init?: JsonCallInit,
  ): Promise<JsonResult> {
    const path = template.replace(/\{(\w+)\}/g, (_, name: string) => String(params[name]));
    const result = await callJson(fetchFrom(baseUrl), method.toUpperCase(), path, init);
    conforms(method, template, result);
    return result;
  }

  return { conforms, call, exercised };
}
