/**
 * The API reference as a server-rendered page: every operation with its parameters, request
 * body, answers and error codes, and every schema, read from the OpenAPI document. No script and
 * no CDN (the pages' strict CSP holds); the schemas are shown as the JSON they are.
 */
import { html, layout, type Html } from '../pages/html';

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
}
interface Answer {
  description: string;
  content?: Record<string, { schema: unknown }>;
  headers?: Record<string, unknown>;
  'x-error-codes'?: string[];
}
interface Operation {
  operationId: string;
  summary: string;
  tags: string[];
  parameters?: Parameter[];
  security?: Record<string, unknown>[];
  requestBody?: { required: boolean; content: Record<string, { schema: unknown }> };
  responses: Record<string, Answer>;
}
export interface ApiDocument {
  info: { title: string; version: string; description: string };
  tags: { name: string; description: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, { description?: string }> };
}

const refName = (schema: unknown): string | null => {
  const record = schema as { $ref?: string; items?: { $ref?: string } } | undefined;
  const ref = record?.$ref ?? record?.items?.$ref;
  if (!ref) return null;
  const name = ref.split('/').at(-1)!;
  return record?.items ? `${name}[]` : name;
};

function schemaLink(schema: unknown): Html {
  const name = refName(schema);
  return name
    ? html`<a href="#schema-${name.replace('[]', '')}"><code>${name}</code></a>`
    : html`<code>${JSON.stringify(schema)}</code>`;
}

function operationSection(method: string, path: string, op: Operation): Html {
  const body = op.requestBody ? Object.values(op.requestBody.content)[0]?.schema : undefined;
  return html`<section class="api-operation" id="${op.operationId}">
<h3><code>${method.toUpperCase()} ${path}</code></h3>
<p>${op.summary}${op.security ? html` <small>(auth: ${op.security.map((s) => Object.keys(s)[0]).join(', ')})</small>` : ''}</p>
${op.parameters?.length ? html`<ul>${op.parameters.map((p) => html`<li><code>${p.name}</code> (${p.in}${p.required ? ', required' : ''})${p.description ? html`: ${p.description}` : ''}</li>`)}</ul>` : ''}
${body ? html`<p>Body${op.requestBody!.required ? '' : ' (optional)'}: ${schemaLink(body)}</p>` : ''}
<table>
<thead><tr><th scope="col">Status</th><th scope="col">Meaning</th><th scope="col">Body</th><th scope="col">Headers</th></tr></thead>
<tbody>${Object.entries(op.responses).map(([status, answer]) => {
    const content = answer.content ? Object.entries(answer.content)[0] : undefined;
    return html`<tr><td>${status}</td><td>${answer.description}</td><td>${content ? (refName(content[1].schema) ? schemaLink(content[1].schema) : html`<code>${content[0]}</code>`) : '—'}</td><td>${Object.keys(answer.headers ?? {}).join(', ')}</td></tr>`;
  })}</tbody>
</table>
</section>`;
}

export function referencePage(doc: ApiDocument): Html {
  const byTag = new Map<string, [string, string, Operation][]>();
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const list = byTag.get(op.tags[0]!) ?? [];
      list.push([method, path, op]);
      byTag.set(op.tags[0]!, list);
    }
  }
  return layout(
    { title: `API reference — ${doc.info.title}`, area: 'API reference' },
    html`<h1>API reference</h1>
<p>${doc.info.description}</p>
<p>Machine-readable: <a href="/api/openapi.json"><code>/api/openapi.json</code></a> (OpenAPI 3.1, version ${doc.info.version}).</p>
<nav aria-label="Operations"><ul>${doc.tags.map((tag) => html`<li><a href="#tag-${tag.name}">${tag.name}</a>: ${tag.description}</li>`)}</ul></nav>
<h2>Authentication</h2>
<ul>${Object.entries(doc.components.securitySchemes).map(([name, scheme]) => html`<li><code>${name}</code>: ${scheme.description ?? ''}</li>`)}</ul>
${doc.tags.map((tag) => html`<h2 id="tag-${tag.name}">${tag.name}</h2>${(byTag.get(tag.name) ?? []).map(([method, path, op]) => operationSection(method, path, op))}`)}
<h2>Schemas</h2>
${Object.entries(doc.components.schemas).map(([name, schema]) => html`<section id="schema-${name}"><h3>${name}</h3><pre><code>${JSON.stringify(schema, null, 2)}</code></pre></section>`)}`,
  );
}
