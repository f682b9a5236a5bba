import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { atomicWriteFile } from './atomic-write-file.js';

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'rlm-toolstore-'));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe('atomicWriteFile', () => {
  test('creates and replaces a file, leaving no temporary file behind', async () => {
    const file = path.join(directory, 'registry.json');
    await atomicWriteFile(file, '{"a":1}\n');
    await atomicWriteFile(file, '{"a":2}\n');
    expect(await readFile(file, 'utf8')).toBe('{"a":2}\n');
    expect(await readdir(directory)).toEqual(['registry.json']);
  });

  test('leaves the target untouched and cleans up when the rename fails', async () => {
    // A non-empty directory cannot be replaced by a file.
    const target = path.join(directory, 'taken');
    await writeFile(path.join(directory, 'keep.txt'), 'old');
    await mkdir(target);
    await writeFile(path.join(target, 'inside'), 'x');
    await expect(atomicWriteFile(target, 'new')).rejects.toThrow();
    expect((await readdir(directory)).sort()).toEqual(['keep.txt', 'taken']);
  });

  test('fails when the directory does not exist', async () => {
    await expect(atomicWriteFile(path.join(directory, 'missing', 'f.json'), 'x')).rejects.toThrow(
      /ENOENT/,
    );
  });
});
