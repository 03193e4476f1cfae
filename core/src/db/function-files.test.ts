import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readFunctionFiles } from './function-files';

async function withFile(name: string, text: string) {
  const dir = await mkdtemp(path.join(tmpdir(), 'wr-function-file-'));
  try {
    await writeFile(path.join(dir, name), text);
    return await readFunctionFiles(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('function files are read strictly', () => {
  it('every file in migrations/functions defines the function it is named after', async () => {
    const files = await readFunctionFiles();
    expect(files.map((f) => f.name)).toContain('hold_seats');
    for (const file of files) expect(file.sql).toMatch(new RegExp(`^CREATE OR REPLACE FUNCTION ${file.name}\\(`, 'm'));
  });

  it('accepts one CREATE OR REPLACE FUNCTION of the file name', async () => {
    const [file] = await withFile(
      'answer.sql',
      '-- why\nCREATE OR REPLACE FUNCTION answer() RETURNS int LANGUAGE sql AS $$ SELECT 42 $$;\n',
    );
    expect(file!.name).toBe('answer');
    expect(file!.checksum).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses a file named after another function, a plain CREATE, or two functions in one file', async () => {
    await expect(
      withFile('answer.sql', 'CREATE OR REPLACE FUNCTION other() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;'),
    ).rejects.toThrow(/answer/);
    await expect(
      withFile('answer.sql', 'CREATE FUNCTION answer() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;'),
    ).rejects.toThrow(/OR REPLACE/);
    await expect(
      withFile(
        'answer.sql',
        'CREATE OR REPLACE FUNCTION answer() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;\n' +
          'CREATE OR REPLACE FUNCTION helper() RETURNS int LANGUAGE sql AS $$ SELECT 2 $$;',
      ),
    ).rejects.toThrow(/one CREATE OR REPLACE/);
  });

  it('an absent folder holds no function files', async () => {
    expect(await readFunctionFiles(path.join(tmpdir(), 'wr-no-such-folder-here'))).toEqual([]);
  });
});
