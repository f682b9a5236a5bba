import { describe, expect, test } from 'vitest';
import { createContextPathFilter } from './context-path-filter.js';

describe('createContextPathFilter', () => {
  test('a glob without / matches the last segment at any depth', () => {
    const filter = createContextPathFilter({ include: ['*.md'], exclude: ['node_modules'] });
    expect(filter.hasIncludes).toBe(true);
    expect(filter.includes('README.md')).toBe(true);
    expect(filter.includes('docs/deep/guide.md')).toBe(true);
    expect(filter.includes('docs/guide.md.txt')).toBe(false);
    expect(filter.excludes('packages/app/node_modules')).toBe(true);
    expect(filter.excludes('packages/app/node_modules_backup')).toBe(false);
  });

  test('a glob with / matches from the top; ./ and trailing / are dropped', () => {
    const filter = createContextPathFilter({ include: ['./src/*.ts'], exclude: ['dist/', 'a/**'] });
    expect(filter.includes('src/main.ts')).toBe(true);
    expect(filter.includes('src/util/strings.ts')).toBe(false);
    expect(filter.includes('lib/src/main.ts')).toBe(false);
    // As in .gitignore, a trailing / does not anchor: `dist/` is a name at any depth.
    expect(filter.excludes('dist')).toBe(true);
    expect(filter.excludes('lib/dist')).toBe(true);
    // `a/**` matches the directory itself, so the walk prunes it whole.
    expect(filter.excludes('a')).toBe(true);
    expect(filter.excludes('a/b/c.txt')).toBe(true);
  });

  test('dot files match like any other; braces, classes and ? work', () => {
    const filter = createContextPathFilter({
      include: ['{docs,guides}/**', '.github/**/*.y?ml', 'file[0-9].txt'],
      exclude: [],
    });
    expect(filter.includes('.github/workflows/ci.yaml')).toBe(true);
    expect(filter.includes('.github/workflows/ci.yml')).toBe(false);
    expect(filter.includes('guides/x/y.md')).toBe(true);
    expect(filter.includes('deep/file7.txt')).toBe(true);
    expect(filter.includes('deep/fileA.txt')).toBe(false);
    expect(filter.excludes('anything')).toBe(false);
  });

  test('no globs: nothing excluded, no includes', () => {
    const filter = createContextPathFilter({ include: [], exclude: [] });
    expect(filter.hasIncludes).toBe(false);
    expect(filter.includes('a.txt')).toBe(false);
    expect(filter.excludes('a.txt')).toBe(false);
  });

  test('a glob that cannot compile throws a TypeError naming the flag', () => {
    expect(() => createContextPathFilter({ include: [], exclude: ['/'] })).toThrow(
      new TypeError('--exclude "/" is not a valid glob'),
    );
  });
});
