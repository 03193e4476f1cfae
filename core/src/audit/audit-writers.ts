/**
 * Finds code that writes the audit log by hand: every row must come from insertAudit
 * (audit-log.ts), which keeps the moved fields, the actor's label and the version together.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const RAW_INSERT = /INSERT\s+INTO\s+operator_audit\b/i;
const SOURCE_DIRS = ['core', 'edge', 'queue', 'lib', 'migrations/functions', 'scripts', 'payment-sandbox'];
const SOURCE_FILE = /\.(ts|sql|lua)$/;

function filesUnder(root: string, dir: string): string[] {
  const full = path.join(root, dir);
  let names: string[];
  try {
    names = readdirSync(full);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    if (name === 'node_modules' || name.startsWith('.')) return [];
    const relative = path.join(dir, name);
    if (statSync(path.join(root, relative)).isDirectory()) return filesUnder(root, relative);
    return SOURCE_FILE.test(name) && !name.includes('.test.') ? [relative] : [];
  });
}

/** Files (relative to `root`) other than `allowed` whose text writes operator_audit directly. */
export function rawAuditWriters(root: string, allowed: string, read = (file: string) => readFileSync(file, 'utf8')) {
  return SOURCE_DIRS.flatMap((dir) => filesUnder(root, dir))
    .filter((file) => file !== allowed)
    .filter((file) => RAW_INSERT.test(read(path.join(root, file))));
}
