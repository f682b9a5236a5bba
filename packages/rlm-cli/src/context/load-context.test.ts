import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Utf8Text } from '@rlm/core';
import { describe, expect, test } from 'vitest';
import { ContextLoadError } from '../context-load-error.js';
import {
  type ContextFileItem,
  type LoadContextOptions,
  type LoadedContext,
  loadContext,
} from './load-context.js';
import { useTemporaryDirectory } from '../test-support/use-temporary-directory.js';

const { root, makeTree } = useTemporaryDirectory('rlm-cli-context-');

/** What each file of a directory's array holds: its text, or a .json file's data. */
function contentsOf(loaded: LoadedContext | undefined): unknown[] {
  return (loaded!.value as ContextFileItem[]).map((item) =>
    'text' in item ? item.text : item.data,
  );
}
const maxBytes = 1024 * 1024;

async function loadError(options: Omit<LoadContextOptions, 'maxBytes'> & { maxBytes?: number }) {
  try {
    await loadContext({ maxBytes, ...options });
  } catch (error) {
    expect(ContextLoadError.isInstance(error)).toBe(true);
    const message = (error as ContextLoadError).message;
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error('expected a ContextLoadError');
}

describe('loadContext: one file', () => {
  test('no source gives no context', async () => {
    expect(await loadContext({ maxBytes })).toBeUndefined();
  });

  test('text files load as strings, byte order mark dropped', async () => {
    const directory = await makeTree('text', {
      'notes.md': '# Title\nline 2\n',
      'bom.txt': '\uFEFFhello',
      'empty.txt': '',
    });
    expect(await loadContext({ file: path.join(directory, 'notes.md'), maxBytes })).toEqual({
      value: '# Title\nline 2\n',
      files: 1,
      bytes: 15,
      binaryFiles: [],
      jsonReadAsText: [],
    });
    expect((await loadContext({ file: path.join(directory, 'bom.txt'), maxBytes }))?.value).toBe(
      'hello',
    );
    expect((await loadContext({ file: path.join(directory, 'empty.txt'), maxBytes }))?.value).toBe(
      '',
    );
  });

  test('.json files are parsed: objects, arrays, any case of extension', async () => {
    const directory = await makeTree('json', {
      'object.json': '{"a": [1, 2], "b": {"c": null}}',
      'array.JSON': '[{"id": 1}, {"id": 2}]',
    });
    expect(
      (await loadContext({ file: path.join(directory, 'object.json'), maxBytes }))?.value,
    ).toEqual({
      a: [1, 2],
      b: { c: null },
    });
    expect(
      (await loadContext({ file: path.join(directory, 'array.JSON'), maxBytes }))?.value,
    ).toEqual([{ id: 1 }, { id: 2 }]);
  });

  test('a .json file that does not parse is read as text, saying where; --strict makes it an error', async () => {
    const text = '{\n  // JSONC\n  "a": 1,\n}';
    const directory = await makeTree('bad-json', { 'tsconfig.json': text });
    const file = path.join(directory, 'tsconfig.json');
    expect(await loadContext({ file, maxBytes })).toEqual({
      value: text,
      files: 1,
      bytes: text.length,
      binaryFiles: [],
      jsonReadAsText: [{ path: file, problem: 'line 2, column 3: unexpected "/"' }],
    });
    expect(await loadError({ file, strict: true })).toBe(
      `${file} is not valid JSON at line 2, column 3 (unexpected "/"); fix it, or drop --strict to read it as text`,
    );
  });

  test('invalid UTF-8 fails fast', async () => {
    const directory = await makeTree('binary', {
      'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]),
    });
    const file = path.join(directory, 'latin1.txt');
    expect(await loadError({ file })).toBe(
      `${file} is not valid UTF-8 text; convert it to UTF-8 or leave it out of the context`,
    );
  });

  test('a missing path, a directory, a path below a file', async () => {
    const missing = path.join(root, 'nope.txt');
    expect(await loadError({ file: missing })).toBe(`${missing} does not exist`);
    const directory = await makeTree('a-dir', { 'x.txt': 'x' });
    expect(await loadError({ file: directory })).toBe(
      `${directory} is a directory; use --context-dir ${directory} to load its files`,
    );
    const below = path.join(directory, 'x.txt', 'y.txt');
    expect(await loadError({ file: below })).toBe(
      `${below} does not exist (a parent is not a directory)`,
    );
  });

  test('an unreadable file', async () => {
    const directory = await makeTree('locked', { 'secret.txt': 'x' });
    const file = path.join(directory, 'secret.txt');
    await chmod(file, 0o000);
    if (process.getuid?.() !== 0) {
      expect(await loadError({ file })).toBe(`cannot read ${file}: permission denied`);
      return;
    }
    // Root reads any file through its capabilities: load it through the built module (the
    // task graph builds the package before its tests) in a process that is still root, so it
    // reaches the checkout wherever it is, but without the capabilities that bypass file modes.
    const moduleUrl = new URL('../../dist/index.js', import.meta.url);
    expect(existsSync(moduleUrl), 'build @rlm/cli first (pnpm build)').toBe(true);
    const script = `import { loadContext } from ${JSON.stringify(moduleUrl.href)};
      loadContext({ file: ${JSON.stringify(file)}, maxBytes: 1024 }).then(
        () => console.log('loaded'), (error) => console.log(error.message));`;
    const output = execFileSync(
      'setpriv',
      [
        '--bounding-set=-dac_override,-dac_read_search',
        process.execPath,
        '--input-type=module',
        '-e',
        script,
      ],
      { encoding: 'utf8' },
    );
    expect(output.trim()).toBe(`cannot read ${file}: permission denied`);
  });

  test('the size limit names the limit and the flag', async () => {
    const directory = await makeTree('big', { 'big.txt': 'x'.repeat(3000) });
    const file = path.join(directory, 'big.txt');
    expect(await loadError({ file, maxBytes: 2048 })).toBe(
      `the context is 2.9 KiB (${file}), over the 2 KiB limit; raise it with --max-context-bytes <bytes>`,
    );
    expect((await loadContext({ file, maxBytes: 3000 }))?.bytes).toBe(3000);
  });

  test('a pipe has no size up front: the limit applies while reading', async () => {
    const fifo = path.join(root, 'context.fifo');
    execFileSync('mkfifo', [fifo]);
    const writer = writeFile(fifo, 'z'.repeat(5000)).catch(() => {});
    expect(await loadError({ file: fifo, maxBytes: 1024 })).toBe(
      `the context grew while reading ${fifo}, over the 1 KiB limit; raise it with --max-context-bytes <bytes>`,
    );
    await writer;
  });
});

describe('loadContext: one file, utf8Text', () => {
  test('a text file loads as its bytes in shared memory, undecoded; .json is parsed as before', async () => {
    const directory = await makeTree('utf8', {
      'notes.md': '# Title\nline é 😀\n',
      'bom.txt': '\uFEFFhello',
      'empty.txt': '',
      'data.json': '{"a": 1}',
    });
    const loaded = await loadContext({
      file: path.join(directory, 'notes.md'),
      maxBytes,
      utf8Text: true,
    });
    const value = loaded?.value;
    if (!Utf8Text.isInstance(value)) throw new Error('expected a Utf8Text');
    expect(value.bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(value.text()).toBe('# Title\nline é 😀\n');
    expect(value.length).toBe('# Title\nline é 😀\n'.length);
    expect(loaded?.bytes).toBe(Buffer.byteLength('# Title\nline é 😀\n'));
    const bom = await loadContext({
      file: path.join(directory, 'bom.txt'),
      maxBytes,
      utf8Text: true,
    });
    expect(String(bom?.value)).toBe('hello');
    const empty = await loadContext({
      file: path.join(directory, 'empty.txt'),
      maxBytes,
      utf8Text: true,
    });
    expect(String(empty?.value)).toBe('');
    const json = await loadContext({
      file: path.join(directory, 'data.json'),
      maxBytes,
      utf8Text: true,
    });
    expect(json?.value).toEqual({ a: 1 });
  });

  test('invalid UTF-8 and the size limit fail as for a string', async () => {
    const directory = await makeTree('utf8-bad', {
      'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]),
      'big.txt': 'x'.repeat(3000),
    });
    const file = path.join(directory, 'latin1.txt');
    expect(await loadError({ file, utf8Text: true })).toBe(
      `${file} is not valid UTF-8 text; convert it to UTF-8 or leave it out of the context`,
    );
    const big = path.join(directory, 'big.txt');
    expect(await loadError({ file: big, maxBytes: 2048, utf8Text: true })).toBe(
      `the context is 2.9 KiB (${big}), over the 2 KiB limit; raise it with --max-context-bytes <bytes>`,
    );
  });
});

describe('loadContext: a directory', () => {
  test('an array of contents in lexical order of relative paths, recursive, hidden skipped', async () => {
    const directory = await makeTree('tree', {
      'b.txt': 'bee',
      'a/z.txt': 'a-zed',
      'a.txt': 'ay',
      'A.txt': 'capital',
      'data.json': '{"n": 1}',
      '.hidden': 'secret',
      '.git/config': 'secret',
      'c/d/e.md': 'deep',
    });
    const loaded = await loadContext({ directory, maxBytes });
    // '.' < '/' in code units, so a.txt comes before a/z.txt; capitals before lower case.
    // Each item carries its path relative to the directory; a .json file its parsed data.
    expect(loaded).toEqual({
      value: [
        { path: 'A.txt', text: 'capital' },
        { path: 'a.txt', text: 'ay' },
        { path: 'a/z.txt', text: 'a-zed' },
        { path: 'b.txt', text: 'bee' },
        { path: 'c/d/e.md', text: 'deep' },
        { path: 'data.json', data: { n: 1 } },
      ],
      files: 6,
      bytes: 29,
      binaryFiles: [],
      jsonReadAsText: [],
    });
  });

  test('--concat joins the files as text under headers naming each one', async () => {
    const directory = await makeTree('concat', {
      'one.txt': 'first\nfile',
      'sub/two.json': '{"kept": "as text"}\n',
      'three.txt': '',
    });
    const loaded = await loadContext({ directory, concat: true, maxBytes });
    expect(loaded?.value).toBe(
      '==> one.txt <==\nfirst\nfile\n\n==> sub/two.json <==\n{"kept": "as text"}\n\n==> three.txt <==\n',
    );
  });

  test('symbolic links to files are followed, links to directories skipped', async () => {
    const directory = await makeTree('links', { 'real.txt': 'real', 'inner/x.txt': 'x' });
    await symlink(path.join(directory, 'real.txt'), path.join(directory, 'alias.txt'));
    await symlink(path.join(directory, 'inner'), path.join(directory, 'loop'));
    expect(contentsOf(await loadContext({ directory, maxBytes }))).toEqual(['real', 'x', 'real']);
  });

  test('a directory with nothing to load says what was skipped and why', async () => {
    const empty = await makeTree('empty', {});
    expect(await loadError({ directory: empty })).toBe(
      `${empty} has no files to load (it is empty)`,
    );
    const directory = await makeTree('nothing-left', {
      '.only-hidden': 'x',
      'node_modules/x/index.js': 'x',
      '.gitignore': 'ignored.txt\n',
      'ignored.txt': 'x',
      'image.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]),
      'notes.txt': 'x',
      'dist/out.js': 'x',
    });
    expect(
      await loadError({ directory, include: ['*.txt', '*.png'], exclude: ['notes.txt'] }),
    ).toBe(
      `${directory} has no files to load (skipped: 1 binary, 1 not matching --include, 1 matching --exclude, 1 ignored by .gitignore (--no-gitignore reads them), 3 hidden or node_modules (--no-default-excludes reads them))`,
    );
  });

  test('a file passed as a directory, a missing directory', async () => {
    const directory = await makeTree('file-not-dir', { 'f.txt': 'x' });
    const file = path.join(directory, 'f.txt');
    expect(await loadError({ directory: file })).toBe(
      `${file} is not a directory; use --context ${file} to load one file`,
    );
    const missing = path.join(root, 'missing-dir');
    expect(await loadError({ directory: missing })).toBe(`${missing} does not exist`);
  });

  test('.json files that do not parse are read as text and listed; with --strict the first aborts the load', async () => {
    const files: Record<string, string> = { 'a.txt': 'fine', 'b.json': '[1, 2' };
    // Many files after it, some bad too: with --strict the error is still b.json's.
    for (let index = 0; index < 100; index++) files[`c/${index}.json`] = index % 2 ? '{' : '1';
    const directory = await makeTree('mixed', files);
    const loaded = await loadContext({ directory, maxBytes });
    expect(loaded?.files).toBe(102);
    expect((loaded!.value as unknown[]).slice(0, 4)).toEqual([
      { path: 'a.txt', text: 'fine' },
      { path: 'b.json', text: '[1, 2' },
      { path: 'c/0.json', data: 1 },
      { path: 'c/1.json', text: '{' },
    ]);
    expect(loaded?.jsonReadAsText).toHaveLength(51);
    expect(loaded?.jsonReadAsText[0]).toEqual({
      path: path.join(directory, 'b.json'),
      problem: 'line 1, column 6: unexpected end of input',
    });
    const bad = path.join(directory, 'b.json');
    expect(await loadError({ directory, strict: true })).toBe(
      `${bad} is not valid JSON at line 1, column 6 (unexpected end of input); fix it, leave it out with --exclude <glob>, or drop --strict to read it as text`,
    );
  });

  test('the size limit counts all files before reading any', async () => {
    const directory = await makeTree('sized', {
      'a.txt': 'x'.repeat(600),
      'b.txt': 'y'.repeat(600),
    });
    expect(await loadError({ directory, maxBytes: 1000, maxBytesFlag: '--limit' })).toBe(
      'the context is 1.2 KiB (2 files), over the 1000 B limit; raise it with --limit <bytes>',
    );
  });

  test('binary files are skipped and listed: a NUL byte near the start, or not UTF-8', async () => {
    const directory = await makeTree('with-binary', {
      'a.txt': 'text',
      'b.png': Buffer.concat([Buffer.from('\x89PNG\r\n'), Buffer.alloc(64)]),
      'c/latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]),
      'd.json': '{"ok": true}',
      // A NUL byte after the first 8000 bytes of valid UTF-8 is text, as in Git.
      'e.txt': `${'x'.repeat(8000)}\u0000`,
    });
    const loaded = await loadContext({ directory, maxBytes });
    expect(loaded).toEqual({
      value: [
        { path: 'a.txt', text: 'text' },
        { path: 'd.json', data: { ok: true } },
        { path: 'e.txt', text: `${'x'.repeat(8000)}\u0000` },
      ],
      files: 3,
      bytes: 4 + 12 + 8001,
      binaryFiles: [path.join(directory, 'b.png'), path.join(directory, 'c/latin1.txt')],
      jsonReadAsText: [],
    });
    const joined = await loadContext({ directory, concat: true, maxBytes });
    expect(joined?.value).toMatch(/^==> a\.txt <==\ntext\n\n==> d\.json <==\n/);
    expect(joined?.binaryFiles).toHaveLength(2);
  });

  test('--strict: the first binary file in lexical order is an error', async () => {
    const directory = await makeTree('strict', {
      'a.txt': 'text',
      'z.bin': Buffer.from([0, 1, 2]),
      'm.bin': Buffer.from([0xff]),
    });
    expect(await loadError({ directory, strict: true })).toBe(
      `${path.join(directory, 'm.bin')} is a binary file (not UTF-8 text); leave it out with --exclude <glob>, or drop --strict to skip binary files`,
    );
  });

  test('binary files do not count against the size limit', async () => {
    const directory = await makeTree('big-binary', {
      'small.txt': 'x'.repeat(100),
      'video.bin': Buffer.alloc(4096),
    });
    expect(await loadContext({ directory, maxBytes: 1000 })).toMatchObject({
      files: 1,
      bytes: 100,
      binaryFiles: [path.join(directory, 'video.bin')],
    });
    // Over the limit with text alone: it fails before reading, naming the text files only.
    const over = await makeTree('big-text', {
      'a.txt': 'x'.repeat(800),
      'b.txt': 'y'.repeat(800),
      'video.bin': Buffer.alloc(4096),
    });
    expect(await loadError({ directory: over, maxBytes: 1000 })).toBe(
      'the context is 1.6 KiB (2 files), over the 1000 B limit; raise it with --max-context-bytes <bytes>',
    );
  });

  test('node_modules, hidden entries and .git are skipped; --no-default-excludes reads all but .git', async () => {
    const directory = await makeTree('defaults', {
      'index.js': 'main',
      'node_modules/dep/index.js': 'dependency',
      'src/node_modules/nested.js': 'nested dependency',
      '.github/workflows/ci.yml': 'ci',
      '.env': 'SECRET=1',
      '.git/HEAD': 'ref: refs/heads/main',
    });
    expect(contentsOf(await loadContext({ directory, maxBytes }))).toEqual(['main']);
    expect(contentsOf(await loadContext({ directory, defaultExcludes: false, maxBytes }))).toEqual([
      'SECRET=1',
      'ci',
      'main',
      'dependency',
      'nested dependency',
    ]);
  });

  test('.gitignore at every level, deeper files winning; --no-gitignore reads everything', async () => {
    const directory = await makeTree('gitignored', {
      '.gitignore': '*.log\nbuild/\n/top-only.txt\n',
      'app.log': 'log',
      'keep.txt': 'kept',
      'top-only.txt': 'ignored at the top',
      'build/out.js': 'built',
      'src/top-only.txt': 'anchored rule does not reach here',
      'src/.gitignore': '!important.log\ngenerated/\n',
      'src/important.log': 'important',
      'src/other.log': 'other',
      'src/generated/x.ts': 'generated',
      'docs/build': 'a file named build is not a directory',
    });
    expect(contentsOf(await loadContext({ directory, maxBytes }))).toEqual([
      'a file named build is not a directory',
      'kept',
      'important',
      'anchored rule does not reach here',
    ]);
    const all = await loadContext({ directory, gitignore: false, maxBytes });
    expect(all?.files).toBe(9);
  });

  test('.gitignore files above the directory apply inside a Git work tree', async () => {
    const repository = await makeTree('repository', {
      '.git/HEAD': 'ref: refs/heads/main',
      '.gitignore': 'dist/\n/packages/app/secret.txt\n',
      'packages/.gitignore': '*.tmp\n',
      'packages/app/index.ts': 'code',
      'packages/app/dist/index.js': 'built',
      'packages/app/secret.txt': 'secret',
      'packages/app/scratch.tmp': 'scratch',
      'ignored/notes.txt': 'notes',
      'ignored/dist/x.txt': 'x',
    });
    const app = path.join(repository, 'packages', 'app');
    expect(contentsOf(await loadContext({ directory: app, maxBytes }))).toEqual(['code']);
    // Outside a work tree, an outer .gitignore means nothing.
    const plain = await makeTree('not-a-repository', {
      '.gitignore': '*.txt\n',
      'inner/notes.txt': 'notes',
    });
    expect(
      contentsOf(await loadContext({ directory: path.join(plain, 'inner'), maxBytes })),
    ).toEqual(['notes']);
  });

  test('a directory its outer .gitignore ignores is still read when named', async () => {
    const repository = await makeTree('repository-ignored', {
      '.git/HEAD': 'ref: refs/heads/main',
      '.gitignore': 'vendor/\n*.md\n',
      'vendor/lib/readme.md': 'read me',
      'vendor/lib/code.js': 'code',
    });
    expect(
      contentsOf(await loadContext({ directory: path.join(repository, 'vendor'), maxBytes })),
    ).toEqual(['code', 'read me']);
  });

  test('--include and --exclude: names at any depth, paths from the top, directories whole', async () => {
    const directory = await makeTree('globs', {
      'README.md': 'readme',
      'docs/guide.md': 'guide',
      'docs/api/index.html': 'api',
      'src/main.ts': 'main',
      'src/main.test.ts': 'test',
      'src/util/strings.ts': 'strings',
      'dist/main.js': 'built',
    });
    const load = async (include: string[], exclude: string[] = []) =>
      contentsOf(await loadContext({ directory, include, exclude, maxBytes }));
    expect(await load(['*.md'])).toEqual(['readme', 'guide']);
    expect(await load(['docs'])).toEqual(['api', 'guide']);
    expect(await load(['src/*.ts'])).toEqual(['test', 'main']);
    expect(await load(['src/**/*.ts'], ['*.test.ts'])).toEqual(['main', 'strings']);
    expect(await load(['./docs/', '*.ts'], ['src/util', 'api/'])).toEqual([
      'guide',
      'test',
      'main',
    ]);
    expect(await load([], ['dist/**', '{docs,src}'])).toEqual(['readme']);
  });

  test('broken links and links to directories are skipped, not errors', async () => {
    const directory = await makeTree('broken-links', { 'real.txt': 'real' });
    await symlink(path.join(directory, 'missing.txt'), path.join(directory, 'broken.txt'));
    await symlink(directory, path.join(directory, 'self'));
    expect(contentsOf(await loadContext({ directory, maxBytes }))).toEqual(['real']);
  });

  test('both a file and a directory is an error', async () => {
    expect(await loadError({ file: 'a', directory: 'b' })).toBe(
      'give either a context file or a context directory, not both',
    );
  });
});
