/**
 * Both API descriptions (the edge's and the core's, as generated) pass Redocly's recommended
 * ruleset with no error (and no warning but the missing licence): security said on every operation (`security: []` when public), valid
 * schemas and references, a 4xx on every operation. The broken variant, the edge's document
 * with one operation's security taken away, is refused by the same lint, so the check can fail.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { buildCoreOpenApiDocument } from '../../core/src/openapi/core-api-description';
import { buildOpenApiDocument } from './openapi/api-description';

const redocly = fileURLToPath(new URL('../../node_modules/.bin/redocly', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; message: string }[];
}

/** `redocly lint` with its recommended rules (no config file), offline: its JSON report. */
async function lint(name: string, document: object): Promise<LintReport> {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(document, null, 2));
  const run = promisify(execFile);
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
  // Errors make it exit 1 with the report still on stdout.
  const { stdout } = await run(redocly, ['lint', file, '--format=json'], { env, cwd: dir }).catch(
    (error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }),
  );
  return JSON.parse(stdout) as LintReport;
}

const errorsOf = (report: LintReport) =>
  report.problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message}`);
/** Warnings, but for the licence: the project states none (package.json is private), so none is invented here. */
const warningsOf = (report: LintReport) =>
  report.problems
    .filter((p) => p.severity === 'warn' && p.ruleId !== 'info-license')
    .map((p) => `${p.ruleId}: ${p.message}`);

describe('Redocly recommended rules', () => {
  it("the edge's description has no error", async () => {
    const report = await lint('edge.json', buildOpenApiDocument());
    expect(errorsOf(report)).toEqual([]);
    expect(report.totals.errors).toBe(0);
    expect(warningsOf(report)).toEqual([]);
  });

  it("the core's description has no error", async () => {
    const report = await lint('core.json', buildCoreOpenApiDocument());
    expect(errorsOf(report)).toEqual([]);
    expect(report.totals.errors).toBe(0);
    expect(warningsOf(report)).toEqual([]);
  });

  it('an operation without security is an error: the broken variant', async () => {
    const document = structuredClone(buildOpenApiDocument()) as { paths: Record<string, Record<string, object>> };
    delete (document.paths['/api/showtimes']!.get as { security?: unknown }).security;
    const report = await lint('broken.json', document);
    expect(errorsOf(report).some((e) => e.startsWith('security-defined'))).toBe(true);
  });
});

type Parameter = { name: string; in: string; schema: { type?: string } };
type Document = {
  paths: Record<string, Record<string, { parameters?: Parameter[]; requestBody?: unknown; description?: string }>>;
};

describe('what the lint does not check', () => {
  const documents = { edge: buildOpenApiDocument(), core: buildCoreOpenApiDocument() } as unknown as Record<
    string,
    Document
  >;

  it('path ids that come back as integers are integers', () => {
    for (const [name, document] of Object.entries(documents))
      for (const [path, methods] of Object.entries(document.paths))
        for (const operation of Object.values(methods))
          for (const parameter of operation.parameters ?? [])
            if (['id', 'showtimeId', 'venueId'].includes(parameter.name))
              expect(parameter.schema.type, `${name} ${path} ${parameter.name}`).toBe('integer');
  });

  it('every operation is described, and the demo login documents the body the README sends', () => {
    for (const document of Object.values(documents))
      for (const [path, methods] of Object.entries(document.paths))
        for (const [method, operation] of Object.entries(methods))
          expect(operation.description, `${method} ${path}`).toMatch(/\w+/);
    expect(documents.edge!.paths['/api/auth/demo']!.post!.requestBody).toMatchObject({
      required: false,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/DemoLoginRequest' } } },
    });
  });
});
