/**
 * `npm run bench -- <name> --record`: what the benchmark printed is appended to
 * bench/results.md under the date and the commit it ran on, so results are kept as data
 * beside the method (bench/README.md) instead of in prose.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync } from 'node:fs';

export const RECORD_FLAG = '--record';

/** Everything written to stdout from now until `stop()`, still shown as it is written. */
export function captureStdout(): { stop: () => string } {
  const chunks: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stdout.write;
  return {
    stop: () => {
      process.stdout.write = write;
      return chunks.join('');
    },
  };
}

/** The commit the tree is at, with `+dirty` when it has uncommitted changes; `unknown` outside git. */
export function currentCommit(cwd: string): string {
  try {
    const sha = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], {
      cwd,
      encoding: 'utf8',
    }).trim();
    return dirty ? `${sha}+dirty` : sha;
  } catch {
    return 'unknown';
  }
}

/** One results entry: a heading with date, benchmark, arguments and commit, then the output verbatim. */
export function formatRecord(entry: {
  name: string;
  args: string[];
  at: Date;
  commit: string;
  output: string;
}): string {
  const args = entry.args.length ? ` ${entry.args.join(' ')}` : '';
  const fence = entry.output.includes('```') ? '~~~~' : '```';
  return `\n## ${entry.at.toISOString().slice(0, 16).replace('T', ' ')} UTC · \`${entry.name}${args}\` · ${entry.commit}\n\n${fence}text\n${entry.output.trimEnd()}\n${fence}\n`;
}

export function appendRecord(file: string, entry: Parameters<typeof formatRecord>[0]): void {
  appendFileSync(file, formatRecord(entry));
}
