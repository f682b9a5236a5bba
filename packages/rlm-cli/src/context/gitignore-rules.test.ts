import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { GitignoreRules } from './gitignore-rules.js';
import { useTemporaryDirectory } from '../test-support/use-temporary-directory.js';
import { writeFileIn } from '../test-support/write-file-in.js';

const { root } = useTemporaryDirectory('rlm-cli-gitignore-');

async function write(relative: string, content: string): Promise<void> {
  await writeFileIn(root, relative, content);
}

describe('GitignoreRules', () => {
  test('none ignores nothing', () => {
    expect(GitignoreRules.none.ignores('a.log', false)).toBe(false);
  });

  test('directory patterns apply to directories only; patterns are case-sensitive', () => {
    const rules = GitignoreRules.none.withFile('', 'build/\n*.LOG\n# a comment\n');
    expect(rules.ignores('build', true)).toBe(true);
    expect(rules.ignores('build', false)).toBe(false);
    expect(rules.ignores('src/build', true)).toBe(true);
    expect(rules.ignores('x.LOG', false)).toBe(true);
    expect(rules.ignores('x.log', false)).toBe(false);
  });

  test('a deeper file applies below its directory and wins over an outer one', () => {
    const rules = GitignoreRules.none
      .withFile('', '*.log\n/top.txt\n')
      .withFile('src', '!keep.log\n/top.txt\n');
    expect(rules.ignores('a.log', false)).toBe(true);
    expect(rules.ignores('src/a.log', false)).toBe(true);
    expect(rules.ignores('src/keep.log', false)).toBe(false);
    expect(rules.ignores('top.txt', false)).toBe(true);
    expect(rules.ignores('src/top.txt', false)).toBe(true);
    expect(rules.ignores('src/deeper/top.txt', false)).toBe(false);
  });

  test('above: files between the work tree top and the directory, anchored at their own place', async () => {
    await write('repo/.git/HEAD', 'ref: refs/heads/main\n');
    await write('repo/.gitignore', '/packages/app/local.txt\n*.tmp\n');
    await write('repo/packages/.gitignore', 'app/generated/\n');
    await mkdir(path.join(root, 'repo/packages/app'), { recursive: true });
    const rules = await GitignoreRules.above(path.join(root, 'repo/packages/app'));
    expect(rules.ignores('local.txt', false)).toBe(true);
    expect(rules.ignores('sub/local.txt', false)).toBe(false);
    expect(rules.ignores('x.tmp', false)).toBe(true);
    expect(rules.ignores('generated', true)).toBe(true);
    expect(rules.ignores('index.ts', false)).toBe(false);
  });

  test('above: nothing outside a work tree, nothing when the directory itself is ignored', async () => {
    await write('plain/.gitignore', '*\n');
    await mkdir(path.join(root, 'plain/inner'), { recursive: true });
    expect((await GitignoreRules.above(path.join(root, 'plain/inner'))).ignores('a', false)).toBe(
      false,
    );
    await write('repo2/.git/HEAD', 'ref: refs/heads/main\n');
    await write('repo2/.gitignore', 'vendor/\n*.md\n');
    await mkdir(path.join(root, 'repo2/vendor'), { recursive: true });
    const rules = await GitignoreRules.above(path.join(root, 'repo2/vendor'));
    expect(rules).toBe(GitignoreRules.none);
  });
});
