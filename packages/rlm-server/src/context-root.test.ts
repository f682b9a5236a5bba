import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ContextRoot } from './context-root.js';
import { ContextTooLargeError } from './errors/context-too-large-error.js';
import { ServedRequestError } from './errors/served-request-error.js';
import { ServerSettingsError } from './errors/server-settings-error.js';

let base: string;
let root: string;
const signal = new AbortController().signal;

beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'rlm-server-context-root-'));
  root = path.join(base, 'root');
  await mkdir(path.join(root, 'docs'), { recursive: true });
  await writeFile(path.join(root, 'docs', 'a.md'), '# A');
  await writeFile(path.join(root, 'b.txt'), 'B text');
  await writeFile(path.join(root, '..dots'), 'dots');
  await writeFile(path.join(root, 'binary.bin'), Buffer.from([0xff, 0xfe, 0x00, 0x41]));
  await writeFile(path.join(base, 'secret.txt'), 'outside the root');
  await symlink(path.join(base, 'secret.txt'), path.join(root, 'link-out.txt'));
  await symlink(path.join(root, 'b.txt'), path.join(root, 'link-in.txt'));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

async function loadError(contextRoot: ContextRoot, paths: unknown): Promise<ServedRequestError> {
  try {
    await contextRoot.load(paths, 'context_paths', signal);
  } catch (error) {
    if (ServedRequestError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ServedRequestError');
}

describe('ContextRoot', () => {
  test('reads files named relative to the root, in order, named by their relative path', async () => {
    const contextRoot = await ContextRoot.open({ directory: root });
    expect(
      await contextRoot.load(['docs/a.md', './b.txt', '..dots', 'link-in.txt'], 'paths', signal),
    ).toEqual([
      { name: 'docs/a.md', value: '# A' },
      { name: 'b.txt', value: 'B text' },
      { name: '..dots', value: 'dots' },
      { name: 'b.txt', value: 'B text' },
    ]);
  });

  test('an absolute path inside the root is read', async () => {
    const contextRoot = await ContextRoot.open({ directory: root });
    expect(await contextRoot.load([path.join(root, 'b.txt')], 'paths', signal)).toEqual([
      { name: 'b.txt', value: 'B text' },
    ]);
  });

  test.each([
    ['../secret.txt'],
    ['docs/../../secret.txt'],
    ['link-out.txt'],
    ['/etc/hostname'],
    ['..'],
  ])('%j is outside the root: 400, nothing read', async (requested) => {
    const contextRoot = await ContextRoot.open({ directory: root });
    const error = await loadError(contextRoot, [requested]);
    expect(error.status).toBe(400);
    expect(error.code).toBe('context_path_outside_root');
    expect(error.param).toBe('context_paths[0]');
    expect(error.message).toContain('is outside the context root');
  });

  test.each([
    [['missing.txt'], 'context_path_not_found'],
    [['docs'], 'context_path_not_file'],
    [['binary.bin'], 'context_path_binary'],
    [[''], 'invalid_context_path'],
    [[42], 'invalid_context_path'],
    [['a\0b'], 'invalid_context_path'],
    [[], 'invalid_context_paths'],
    ['b.txt', 'invalid_context_paths'],
  ])('%j: 400 %s', async (paths, code) => {
    const contextRoot = await ContextRoot.open({ directory: root });
    const error = await loadError(contextRoot, paths);
    expect(error.status).toBe(400);
    expect(error.code).toBe(code);
  });

  test('past the byte limit across paths: 413', async () => {
    const contextRoot = await ContextRoot.open({ directory: root, maxBytes: 8 });
    expect(await contextRoot.load(['b.txt'], 'paths', signal)).toHaveLength(1);
    const error = await loadError(contextRoot, ['b.txt', 'docs/a.md']);
    expect(error.status).toBe(413);
    expect(error.code).toBe('context_too_large');
    expect(error.param).toBe('context_paths[1]');
  });

  test("a loader's own errors: a ContextTooLargeError is 413, any other 400 with paths shown relative", async () => {
    const contextRoot = await ContextRoot.open({
      directory: root,
      load: async (absolute, { maxBytes }) => {
        if (absolute.endsWith('a.md')) throw new ContextTooLargeError('too big', { maxBytes });
        throw new Error(`@rlm/cli: cannot read ${absolute}: EACCES`);
      },
    });
    expect((await loadError(contextRoot, ['docs/a.md'])).status).toBe(413);
    const error = await loadError(contextRoot, ['b.txt']);
    expect(error.status).toBe(400);
    expect(error.code).toBe('context_unreadable');
    expect(error.message).toBe('context_paths[0] cannot be read: cannot read b.txt: EACCES');
  });

  test('a root that is not a directory is a settings error', async () => {
    await expect(ContextRoot.open({ directory: path.join(root, 'b.txt') })).rejects.toThrow(
      ServerSettingsError,
    );
    await expect(ContextRoot.open({ directory: path.join(base, 'nope') })).rejects.toThrow(
      /is not a directory/,
    );
  });
});
