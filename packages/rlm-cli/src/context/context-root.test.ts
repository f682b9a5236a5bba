import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ContextLoadError } from '../context-load-error.js';
import { ContextRoot } from './context-root.js';
import { loadContext } from './load-context.js';

let base: string;
let root: ContextRoot;
let inside: string;

beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'rlm-context-root-'));
  inside = path.join(base, 'root');
  await mkdir(path.join(inside, 'docs'), { recursive: true });
  await writeFile(path.join(inside, 'docs', 'own.txt'), 'inside the root');
  await writeFile(path.join(base, 'secret.txt'), 'outside the root');
  await symlink(path.join(base, 'secret.txt'), path.join(inside, 'docs', 'leak.txt'));
  await symlink('/proc/self/environ', path.join(inside, 'environ'));
  await symlink(path.join(inside, 'docs', 'own.txt'), path.join(base, 'in-link.txt'));
  execFileSync('mkfifo', [path.join(inside, 'pipe')]);
  root = await ContextRoot.open(inside);
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

async function refusal(target: string, kind: 'file' | 'directory' = 'file'): Promise<string> {
  const error = await root.confine(target, kind).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(ContextLoadError.isInstance(error)).toBe(true);
  const { message } = error as ContextLoadError;
  expect(message).not.toContain('\n');
  return message;
}

describe('ContextRoot', () => {
  test('a regular file under the root is its real path; the root itself is a directory', async () => {
    expect(await root.confine(path.join(inside, 'docs', 'own.txt'), 'file')).toBe(
      path.join(root.real, 'docs', 'own.txt'),
    );
    expect(await root.confine(path.join(inside, 'docs'), 'directory')).toBe(
      path.join(root.real, 'docs'),
    );
    // A link from outside into the root leads to a file under it.
    expect(await root.confine(path.join(base, 'in-link.txt'), 'file')).toBe(
      path.join(root.real, 'docs', 'own.txt'),
    );
  });

  test('refuses a path outside the root, also through a symbolic link or ..', async () => {
    expect(await refusal(path.join(base, 'secret.txt'))).toMatch(
      /secret\.txt is outside the context root .*root; move it under the root, or give the root that holds it with --context-root$/,
    );
    expect(await refusal(path.join(inside, 'docs', 'leak.txt'))).toMatch(
      /leak\.txt is outside the context root .* \(it leads to .*secret\.txt\)/,
    );
    expect(await refusal(path.join(inside, 'docs', '..', '..', 'secret.txt'))).toMatch(
      /outside the context root/,
    );
  });

  test('refuses /proc, /sys and /dev files, even under a root of /', async () => {
    const everything = await ContextRoot.open('/');
    for (const target of ['/proc/self/environ', '/dev/null', '/sys/kernel/mm']) {
      const error = await everything.confine(target, 'file').catch((caught: unknown) => caught);
      expect((error as Error).message).toMatch(/is a system file.*not a context/);
    }
    expect(await refusal(path.join(inside, 'environ'))).toMatch(
      /environ is a system file \(it leads to \/proc\/\d+\/environ\), not a context/,
    );
  });

  test('refuses a FIFO, a directory for a file and a file for a directory, and a missing file', async () => {
    expect(await refusal(path.join(inside, 'pipe'))).toMatch(
      /pipe is a FIFO, not a regular file: a context must be a regular file under the context root/,
    );
    expect(await refusal(path.join(inside, 'docs'))).toMatch(
      /docs is a directory, not a regular file/,
    );
    expect(await refusal(path.join(inside, 'docs', 'own.txt'), 'directory')).toMatch(
      /own\.txt is a file, not a directory/,
    );
    expect(await refusal(path.join(inside, 'nothing.txt'))).toMatch(/nothing\.txt does not exist/);
  });

  test('a root that is missing or not a directory is refused', async () => {
    await expect(ContextRoot.open(path.join(base, 'none'))).rejects.toThrow(/does not exist/);
    await expect(ContextRoot.open(path.join(base, 'secret.txt'))).rejects.toThrow(
      /the context root .*secret\.txt is not a directory/,
    );
  });
});

describe('loadContext under a root', () => {
  test('loads a file under it; a directory under it leaves out links that lead outside', async () => {
    const file = await loadContext({
      file: path.join(inside, 'docs', 'own.txt'),
      root,
      maxBytes: 1024,
    });
    expect(file?.value).toBe('inside the root');
    const directory = await loadContext({
      directory: path.join(inside, 'docs'),
      root,
      maxBytes: 1024,
    });
    expect(directory?.value).toEqual([{ path: 'own.txt', text: 'inside the root' }]);
    // Without a root, the operator's own directory follows its links, as before.
    const unconfined = await loadContext({ directory: path.join(inside, 'docs'), maxBytes: 1024 });
    const texts = ((unconfined?.value ?? []) as { text: string }[]).map((item) => item.text);
    expect(texts).toEqual(['outside the root', 'inside the root']);
  });

  test('a file outside it is refused before anything is read', async () => {
    await expect(
      loadContext({ file: path.join(base, 'secret.txt'), root, maxBytes: 1024 }),
    ).rejects.toThrow(/outside the context root/);
  });
});
