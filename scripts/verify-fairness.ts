/**
 * npm run verify-fairness -- <showtime url | log file> [receipt | receipt file] [--keys <jwks url | file>]
 *
 * Checks a sale's published admission log (lib/fairness-verify.ts) and, when given, a buyer's
 * join receipt. A showtime url is the page (`https://tickets.example/showtimes/42`) or the API
 * (`…/api/showtimes/42/fairness`); the receipt keys come from the same site
 * (`/api/fairness/keys`) unless --keys says otherwise.
 * Exit status: 0 verified, 1 failed verification, 2 could not run (bad input, unreachable, sale not over).
 */
import { readFile } from 'node:fs/promises';
import type { JSONWebKeySet } from 'jose';
import { CannotVerify, verifyFairness } from '../lib/fairness-verify';

const TIMEOUT_MS = 15_000;

async function getJson(url: string): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (error) {
    throw new CannotVerify(`${url} is unreachable (${(error as Error).message})`);
  }
  if (!response.ok) throw new CannotVerify(`${url} answered ${response.status}`);
  try {
    return await response.json();
  } catch {
    throw new CannotVerify(`${url} did not answer JSON`);
  }
}

async function readJsonFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new CannotVerify(`cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new CannotVerify(`${path} is not JSON`);
  }
}

/** The log's API address and the site's keys address, from whatever showtime address was given. */
function logAddresses(input: string): { log: string; keys: string } {
  const url = new URL(input);
  const id = /\/showtimes\/([A-Za-z0-9_-]+)/.exec(url.pathname)?.[1];
  if (!id) throw new CannotVerify(`${input} names no showtime (expected …/showtimes/<id>)`);
  return { log: `${url.origin}/api/showtimes/${id}/fairness`, keys: `${url.origin}/api/fairness/keys` };
}

/** A receipt as given: the token itself, or a file holding it (raw, or JSON with a `receipt` field). */
async function readReceipt(arg: string): Promise<string> {
  if (/^[\w-]+\.[\w-]+\.[\w-]+$/.test(arg.trim())) return arg.trim();
  const text = await readFile(arg, 'utf8').catch(() => {
    throw new CannotVerify(`the receipt is neither a receipt nor a readable file: ${arg}`);
  });
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    const receipt = (JSON.parse(trimmed) as { receipt?: unknown }).receipt;
    if (typeof receipt !== 'string') throw new CannotVerify(`${arg} holds no "receipt"`);
    return receipt;
  }
  return trimmed;
}

async function main(argv: string[]): Promise<number> {
  const args = [...argv];
  const keysAt = args.indexOf('--keys');
  const keysArg = keysAt >= 0 ? args.splice(keysAt, 2)[1] : undefined;
  const [source, receiptArg] = args;
  if (!source)
    throw new CannotVerify('usage: npm run verify-fairness -- <showtime url | log file> [receipt] [--keys <jwks>]');
  const remote = /^https?:\/\//.test(source);
  const addresses = remote ? logAddresses(source) : null;
  const log = remote ? await getJson(addresses!.log) : await readJsonFile(source);
  const receipt = receiptArg ? await readReceipt(receiptArg) : null;
  let jwks: JSONWebKeySet | null = null;
  if (receipt) {
    const from = keysArg ?? addresses?.keys;
    if (!from) throw new CannotVerify('checking a receipt against a log file needs --keys <jwks url | file>');
    jwks = (/^https?:\/\//.test(from) ? await getJson(from) : await readJsonFile(from)) as JSONWebKeySet;
  }
  const result = await verifyFairness(log, { receipt, jwks });
  for (const check of result.checks)
    console.log(`${check.ok ? 'ok  ' : 'FAIL'}  ${check.id.padEnd(14)} ${check.detail}`);
  if (result.receipt) {
    const r = result.receipt;
    console.log(
      `receipt: joined ${r.claims.stage === 'prequeue' ? 'the pre-queue' : `with rank ${r.claims.rank}`}, ` +
        `entries ${r.entries.join(', ') || 'none'}, ${r.admitted ? 'admitted' : 'not admitted'}, ` +
        `overtaken ${r.overtakenBy} times`,
    );
  }
  console.log(`inversions: ${result.inversions}`);
  console.log(result.summary);
  return result.verdict === 'verified' ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(
      error instanceof CannotVerify ? `COULD NOT VERIFY: ${error.message}` : `COULD NOT VERIFY: ${String(error)}`,
    );
    process.exit(2);
  },
);
