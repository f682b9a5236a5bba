import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { ContextTooLargeError, ServedRequestError } from '@rlm/server';
import { describe, expect, test } from 'vitest';
import { useTemporaryDirectory } from '../../test-support/use-temporary-directory.js';
import { loadContextPath } from './load-context-path.js';

const { makeTree } = useTemporaryDirectory('rlm-cli-load-context-path-');
const signal = new AbortController().signal;

describe('loadContextPath', () => {
  test('a file as rlm --context reads it, a directory as rlm --context-dir does', async () => {
    const root = await makeTree('read', {
      'notes.md': '# Notes\n',
      'data.json': '{"a": 1}',
      'dir/one.txt': 'one',
      'dir/two.txt': 'two',
      'dir/.hidden': 'hidden',
    });
    const options = { maxBytes: 1024, signal };
    expect(await loadContextPath(path.join(root, 'notes.md'), options)).toEqual({
      value: '# Notes\n',
      bytes: 8,
    });
    expect((await loadContextPath(path.join(root, 'data.json'), options)).value).toEqual({ a: 1 });
    expect(await loadContextPath(path.join(root, 'dir'), options)).toEqual({
      value: ['one', 'two'],
      bytes: 6,
    });
  });

  test('past maxBytes: a ContextTooLargeError (answered 413)', async () => {
    const root = await makeTree('large', { 'big.txt': 'x'.repeat(2000) });
    const error = await loadContextPath(path.join(root, 'big.txt'), {
      maxBytes: 1000,
      signal,
    }).catch((caught: unknown) => caught);
    expect(ContextTooLargeError.isInstance(error)).toBe(true);
    expect((error as Error).message).not.toContain('--max-context-bytes');
  });

  test('a FIFO is refused instead of waiting for a writer', async () => {
    const root = await makeTree('fifo', {});
    const fifo = path.join(root, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const error = await loadContextPath(fifo, { maxBytes: 1024, signal }).catch(
      (caught: unknown) => caught,
    );
    expect(ServedRequestError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 400, code: 'context_path_not_file' });
  });
});
