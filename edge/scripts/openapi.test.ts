import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import { generatedPath, renderOpenApiModule } from './openapi/openapi-module';
import { ERROR_STATUS } from '../../lib/error-codes';
import { buildOpenApiDocument } from './openapi/api-description';

describe('the OpenAPI description', () => {
  it('generated module is up to date with edge/scripts/openapi (run `npm run build:openapi` if not)', () => {
    expect(readFileSync(generatedPath, 'utf8')).toBe(renderOpenApiModule());
  });

  it('is a valid OpenAPI 3.1 document whose every $ref resolves', async () => {
    const document = buildOpenApiDocument();
    // validate() checks against the OpenAPI 3.1 schema and dereferences every $ref.
    const api = await SwaggerParser.validate(structuredClone(document) as never);
    expect((api as { openapi?: string }).openapi).toBe('3.1.0');
    expect(Object.keys(document.paths).length).toBeGreaterThanOrEqual(15);
  });

  it('documents every 429 and 503 with Retry-After, and every error answer with its codes', () => {
    const { paths } = buildOpenApiDocument();
    for (const [path, methods] of Object.entries(paths)) {
      for (const [method, operation] of Object.entries(
        methods as Record<
          string,
          { responses: Record<string, { headers: object; content?: object; 'x-error-codes'?: string[] }> }
        >,
      )) {
        for (const [status, answer] of Object.entries(operation.responses)) {
          if (status === '429' || (status === '503' && path !== '/readyz'))
            expect(Object.keys(answer.headers), `${method} ${path} ${status}`).toContain('Retry-After');
          if (Number(status) >= 400 && path !== '/readyz')
            expect(answer['x-error-codes']?.length, `${method} ${path} ${status}`).toBeGreaterThan(0);
        }
      }
    }
  });

  it('names only error codes of the catalogue (lib/error-codes.ts), each under its own status', () => {
    const { paths } = buildOpenApiDocument();
    const wrong: string[] = [];
    for (const [path, methods] of Object.entries(paths)) {
      for (const [method, operation] of Object.entries(
        methods as Record<string, { responses: Record<string, { 'x-error-codes'?: string[] }> }>,
      )) {
        for (const [status, answer] of Object.entries(operation.responses)) {
          for (const code of answer['x-error-codes'] ?? []) {
            const known = (ERROR_STATUS as Record<string, number>)[code];
            if (String(known) !== status)
              wrong.push(`${method} ${path} ${status} ${code} (catalogue: ${known ?? 'unknown'})`);
          }
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('describes request bodies with the schemas the routes validate with', () => {
    const { components } = buildOpenApiDocument();
    type Seats = { maxItems: number; items: { pattern: string } };
    const hold = components.schemas.HoldRequest as {
      properties?: { seats?: Seats };
      anyOf?: { properties?: { seats?: Seats } }[];
    };
    const seats = [hold, ...(hold.anyOf ?? [])].find((variant) => variant.properties?.seats)?.properties?.seats;
    expect(seats?.items.pattern).toBeTruthy();
    expect(seats?.maxItems).toBeGreaterThan(0);
    expect(components.schemas.CheckoutRequest).toMatchObject({ additionalProperties: false });
    expect(Object.keys((components.schemas.RoomUpdate as { properties: object }).properties)).toEqual(
      expect.arrayContaining(['capacity', 'admitPerMinute', 'state', 'opensAt']),
    );
  });
});
