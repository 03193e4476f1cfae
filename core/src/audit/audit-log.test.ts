import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { changedFields } from './audit-log';
import { rawAuditWriters } from './audit-writers';

const root = path.resolve(import.meta.dirname, '../../..');
const AUDIT_LOG = path.join('core', 'src', 'audit', 'audit-log.ts');

describe('one writer of the audit log', () => {
  it('has no INSERT INTO operator_audit anywhere but audit-log.ts', () => {
    expect(rawAuditWriters(root, AUDIT_LOG)).toEqual([]);
  });

  it('would catch one (a hand-written insert planted in a source file)', () => {
    const planted = path.join(root, 'core', 'src', 'fares', 'fare-service.ts');
    const read = (file: string) =>
      file === planted ? 'await tx`INSERT INTO operator_audit (showtime_id) VALUES (1)`' : '';
    expect(rawAuditWriters(root, AUDIT_LOG, read)).toEqual([path.join('core', 'src', 'fares', 'fare-service.ts')]);
  });
});

describe('changed fields', () => {
  it('keeps only what moved, each side with its own value, never the version', () => {
    expect(
      changedFields(
        { title: 'A', priceCents: 900, holdTtlSeconds: 600, version: 3, same: [1, 2] },
        { title: 'B', priceCents: 1100, holdTtlSeconds: 600, version: 4, same: [1, 2], idealRow: 5 },
      ),
    ).toEqual({
      before: { title: 'A', priceCents: 900, idealRow: null },
      after: { title: 'B', priceCents: 1100, idealRow: 5 },
    });
    expect(changedFields(null, { capacity: 3 })).toEqual({ before: null, after: { capacity: 3 } });
  });
});
