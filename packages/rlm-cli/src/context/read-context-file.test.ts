import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { ByteLimit } from './byte-limit.js';
import { readWalkedFileSync, startsLikeBinarySync } from './read-context-file.js';
import { useTemporaryDirectory } from '../test-support/use-temporary-directory.js';

const { root } = useTemporaryDirectory('rlm-cli-read-');

async function entry(name: string, content: string | Buffer) {
  const file = path.join(root, name);
  await writeFile(file, content);
  return { path: file, relativePath: name, size: Buffer.byteLength(content) };
}

describe('readWalkedFileSync', () => {
  test('text counts against the limit; binary does not, and a NUL stops the read', async () => {
    const limit = new ByteLimit(100, '--max-context-bytes');
    expect(readWalkedFileSync(await entry('a.txt', 'héllo'), limit)).toEqual({
      kind: 'text',
      text: 'héllo',
    });
    expect(limit.used).toBe(6);
    // 200 bytes would pass the limit, but the NUL near the start stops the read first.
    const binary = await entry('b.bin', Buffer.concat([Buffer.from([0]), Buffer.alloc(199, 1)]));
    expect(readWalkedFileSync(binary, limit)).toEqual({ kind: 'binary' });
    expect(readWalkedFileSync(await entry('c.txt', Buffer.from([0xe9])), limit)).toEqual({
      kind: 'binary',
    });
    expect(limit.used).toBe(6);
  });

  test('a file larger than the limit fails while reading, naming the flag', async () => {
    const limit = new ByteLimit(10, '--max-context-bytes');
    const big = await entry('big.txt', 'x'.repeat(50));
    expect(() => readWalkedFileSync({ ...big, size: 5 }, limit)).toThrow(
      `the context grew while reading ${big.path}, over the 10 B limit; raise it with --max-context-bytes <bytes>`,
    );
  });

  test('a pipe put where a file was does not hang the read', async () => {
    const fifo = path.join(root, 'swapped.txt');
    execFileSync('mkfifo', [fifo]);
    const limit = new ByteLimit(100, '--max-context-bytes');
    const content = readWalkedFileSync(
      { path: fifo, relativePath: 'swapped.txt', size: 10 },
      limit,
    );
    expect(['special', 'text']).toContain(content.kind);
    expect(startsLikeBinarySync({ path: fifo, relativePath: 'swapped.txt', size: 10 })).toBe(false);
  });
});
