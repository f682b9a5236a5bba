import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, onTestFinished, test } from 'vitest';
import { timeScaled } from '@rlm/core/testing';
import { createContextPathFilter } from './context-path-filter.js';
import { loadContext } from './load-context.js';
import { useTemporaryDirectory } from '../test-support/use-temporary-directory.js';
import { walkContextDirectory } from './walk-context-directory.js';

// Removing a big tree on a loaded machine can take a while.
const { root, makeTree } = useTemporaryDirectory('rlm-cli-walk-', { removeTimeoutMs: 300_000 });

const noFilter = createContextPathFilter({ include: [], exclude: [] });

describe('walkContextDirectory', () => {
  test('a directory left out counts once, whatever it holds, and is never entered', async () => {
    const directory = await makeTree('pruned', {
      '.gitignore': 'build/\n',
      'build/a.js': 'x',
      'build/b.js': 'x',
      'dist/a.js': 'x',
      'dist/deep/b.js': 'x',
      'node_modules/a/index.js': 'x',
      'node_modules/b/index.js': 'x',
      'src/a.ts': 'x',
      'src/b.md': 'x',
    });
    // A FIFO inside an excluded directory would be counted as special if it were entered.
    execFileSync('mkfifo', [path.join(directory, 'dist', 'pipe')]);
    execFileSync('mkfifo', [path.join(directory, 'src', 'pipe')]);
    const walk = await walkContextDirectory(directory, {
      filter: createContextPathFilter({ include: ['*.ts'], exclude: ['dist'] }),
      gitignore: true,
      defaultExcludes: true,
    });
    expect(walk.files.map((file) => file.relativePath)).toEqual(['src/a.ts']);
    expect(walk.files[0]).toEqual({
      path: path.join(directory, 'src', 'a.ts'),
      relativePath: 'src/a.ts',
      size: 1,
    });
    expect(walk.skipped).toEqual({
      byDefault: 2, // .gitignore and node_modules
      byGitignore: 1,
      byExclude: 1,
      notIncluded: 1,
      special: 1,
    });
  });

  test('a missing directory and an unreadable .gitignore are one-line errors', async () => {
    const missing = path.join(root, 'nowhere');
    await expect(
      walkContextDirectory(missing, { filter: noFilter, gitignore: true, defaultExcludes: true }),
    ).rejects.toThrow(`${missing} does not exist`);
    const directory = await makeTree('gitignore-dir', { 'a.txt': 'x' });
    // A directory named .gitignore cannot be read as a file: it is treated as absent.
    await mkdir(path.join(directory, '.gitignore'));
    const walk = await walkContextDirectory(directory, {
      filter: noFilter,
      gitignore: true,
      defaultExcludes: true,
    });
    expect(walk.files).toHaveLength(1);
  });

  test('100,000 small files load, in order, with node_modules and ignored directories pruned', {
    timeout: 600_000,
  }, async () => {
    const directory = path.join(root, 'hundred-thousand');
    onTestFinished(() => rm(directory, { recursive: true, force: true }), 300_000);
    const directories = 100;
    const perDirectory = 1000;
    for (let outer = 0; outer < directories; outer++) {
      const folder = path.join(directory, `part-${String(outer).padStart(3, '0')}`);
      mkdirSync(folder, { recursive: true });
      for (let inner = 0; inner < perDirectory; inner++) {
        const name = `file-${String(inner).padStart(4, '0')}.txt`;
        writeFileSync(path.join(folder, name), `${outer}:${inner}\n`);
      }
    }
    for (const pruned of ['node_modules/dep', 'build']) {
      mkdirSync(path.join(directory, pruned), { recursive: true });
      for (let index = 0; index < 1000; index++) {
        writeFileSync(path.join(directory, pruned, `${index}.js`), 'x');
      }
    }
    writeFileSync(path.join(directory, '.gitignore'), 'build/\n');

    const { value: loaded, scaledMs } = await timeScaled(() =>
      loadContext({ directory, maxBytes: 256 * 1024 * 1024 }),
    );

    expect(loaded?.files).toBe(directories * perDirectory);
    const value = loaded?.value as { path: string; text: string }[];
    expect(value[0]).toEqual({ path: 'part-000/file-0000.txt', text: '0:0\n' });
    expect(value[1]?.text).toBe('0:1\n');
    expect(value.at(-1)?.text).toBe('99:999\n');
    expect(loaded?.binaryFiles).toEqual([]);
    // A generous bound, scaled by the machine's load: about 3 s on a loaded 2-core machine; the
    // promise API took 15 s.
    expect(scaledMs).toBeLessThan(60_000);
  });
});
