import { execFileSync } from 'node:child_process';
import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { ContextTooLargeError, ServedRequestError } from '@rlm/server';
import { describe, expect, test } from 'vitest';
import { useTemporaryDirectory } from '../../test-support/use-temporary-directory.js';
import { ContextLoadError } from '../../context-load-error.js';
import { ContextRoot } from '../../context/context-root.js';
import { contextPathLoader } from './context-path-loader.js';

const { makeTree } = useTemporaryDirectory('rlm-cli-context-path-loader-');
const signal = new AbortController().signal;

/** The loader of a server whose `--context-root` is `root`. */
async function loaderUnder(root: string) {
  return contextPathLoader(await ContextRoot.open(root));
}

describe('contextPathLoader', () => {
  test('a file as rlm --context reads it, a directory as rlm --context-dir does', async () => {
    const root = await makeTree('read', {
      'notes.md': '# Notes\n',
      'data.json': '{"a": 1}',
      'dir/one.txt': 'one',
      'dir/two.txt': 'two',
      'dir/.hidden': 'hidden',
    });
    const options = { maxBytes: 1024, signal };
    const loadContextPath = await loaderUnder(root);
    expect(await loadContextPath(path.join(root, 'notes.md'), options)).toEqual({
      value: '# Notes\n',
      bytes: 8,
    });
    expect((await loadContextPath(path.join(root, 'data.json'), options)).value).toEqual({ a: 1 });
    expect(await loadContextPath(path.join(root, 'dir'), options)).toEqual({
      value: [
        { path: 'one.txt', text: 'one' },
        { path: 'two.txt', text: 'two' },
      ],
      bytes: 6,
    });
  });

  test('past maxBytes: a ContextTooLargeError (answered 413)', async () => {
    const root = await makeTree('large', { 'big.txt': 'x'.repeat(2000) });
    const error = await (await loaderUnder(root))(path.join(root, 'big.txt'), {
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
    const error = await (await loaderUnder(root))(fifo, { maxBytes: 1024, signal }).catch(
      (caught: unknown) => caught,
    );
    expect(ServedRequestError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 400, code: 'context_path_not_file' });
  });

  test('symbolic links in a directory that lead out of the root, or into /proc, are left out', async () => {
    const outside = await makeTree('outside', { 'secret.txt': 'outside the root' });
    const root = await makeTree('linked', {
      'docs/own.txt': 'inside the root',
      'docs/sub/deep.txt': 'deep inside',
    });
    const docs = path.join(root, 'docs');
    await symlink(path.join(outside, 'secret.txt'), path.join(docs, 'leak.txt'));
    await symlink('/proc/self/environ', path.join(docs, 'environ.txt'));
    await symlink('/etc/hostname', path.join(docs, 'etc.txt'));
    // A link that stays inside the root is read like the file it leads to.
    await symlink(path.join(docs, 'sub', 'deep.txt'), path.join(docs, 'alias.txt'));
    const loaded = await (await loaderUnder(root))(docs, { maxBytes: 1 << 20, signal });
    expect(loaded.value).toEqual([
      { path: 'alias.txt', text: 'deep inside' },
      { path: 'own.txt', text: 'inside the root' },
      { path: 'sub/deep.txt', text: 'deep inside' },
    ]);
    expect(JSON.stringify(loaded.value)).not.toContain('outside the root');
  });

  test('a named link that leads into /proc is refused even when the root holds /proc', async () => {
    const root = await makeTree('proc-link', {});
    await symlink('/proc/self/environ', path.join(root, 'environ'));
    const error = await (await loaderUnder(root))(path.join(root, 'environ'), {
      maxBytes: 1 << 20,
      signal,
    }).catch((caught: unknown) => caught);
    expect(ContextLoadError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/environ is a system file \(it leads to \/proc\//);
    const wide = await (await loaderUnder('/'))('/proc/version', {
      maxBytes: 1 << 20,
      signal,
    }).catch((caught: unknown) => caught);
    expect((wide as Error).message).toMatch(/^\/proc\/version is a system file, not a context/);
  });
});
