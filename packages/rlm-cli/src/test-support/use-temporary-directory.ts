import { randomUUID } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { writeFileIn } from './write-file-in.js';

/** A test file's own directory under the OS temp directory; see {@link useTemporaryDirectory}. */
export interface TemporaryDirectory {
  /** The directory's path: known at once, there from the first test to the last. */
  readonly root: string;
  /**
   * Writes `files` (relative path to content) under `root/name`, which is made even when `files`
   * is empty; resolves to `root/name`.
   */
  makeTree(name: string, files: Readonly<Record<string, string | Buffer>>): Promise<string>;
}

/**
 * Registers the vitest hooks that make `root` (named `prefix` and a random suffix) before the
 * file's first test and remove it after its last; `removeTimeoutMs` gives the removal more time
 * than vitest's hook timeout (a tree of 100,000 files on a loaded machine). Call it at the top of
 * a test file.
 */
export function useTemporaryDirectory(
  prefix: string,
  options: { readonly removeTimeoutMs?: number } = {},
): TemporaryDirectory {
  const root = path.join(tmpdir(), `${prefix}${randomUUID()}`);
  beforeAll(async () => {
    await mkdir(root);
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  }, options.removeTimeoutMs);
  return {
    root,
    makeTree: async (name, files) => {
      const directory = path.join(root, name);
      await mkdir(directory, { recursive: true });
      for (const [relative, content] of Object.entries(files)) {
        await writeFileIn(directory, relative, content);
      }
      return directory;
    },
  };
}
