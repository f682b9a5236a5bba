import { execFile } from 'node:child_process';
import { access, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';

/** Runs a script with this package's dependencies, as an app that installed them would. */
async function node(script: string, type: 'commonjs' | 'module'): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [`--input-type=${type}`, '-e', script],
    { cwd: fileURLToPath(new URL('..', import.meta.url)) },
  );
  return stdout.trim();
}

test('every published package loads with require() as well as import', async () => {
  const names = [
    '@rlm/core',
    '@rlm/artifacts',
    '@rlm/sandbox-ses',
    '@rlm/toolstore',
    '@rlm/trace',
    '@rlm/openai',
    '@rlm/ai-sdk',
    '@rlm/sandbox-quickjs',
    '@rlm/anthropic',
  ];
  const loaded = await node(
    `console.log(JSON.stringify(${JSON.stringify(names)}.map((name) => Object.keys(require(name)).length > 0)))`,
    'commonjs',
  );
  expect(JSON.parse(loaded)).toEqual(names.map(() => true));
});

test('a memory store loads no native module; the SQLite store loads sqlite3 only when made', async () => {
  const directory = await mkdtemp(path.join(tmpdir(), 'rlm-packaging-'));
  try {
    const sqliteLoaded =
      'process.report.getReport().sharedObjects.some((file) => file.includes("node_sqlite3"))';
    const output = await node(
      [
        "const artifacts = await import('@rlm/artifacts');",
        'const memory = artifacts.createMemoryArtifactStore();',
        "await memory.store('text');",
        `const before = ${sqliteLoaded};`,
        `const store = await artifacts.createSqliteArtifactStore({ path: ${JSON.stringify(path.join(directory, 'rlm.sqlite'))} });`,
        `const after = ${sqliteLoaded};`,
        'await store.close();',
        'console.log(JSON.stringify({ before, after }));',
      ].join('\n'),
      'module',
    );
    expect(JSON.parse(output)).toEqual({ before: false, after: true });
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
});

test('every published package says what it is: license file, keywords, homepage, a default export condition, core as a peer of the libraries', async () => {
  const packagesDirectory = fileURLToPath(new URL('../..', import.meta.url));
  const problems: string[] = [];
  for (const directory of await readdir(packagesDirectory)) {
    const root = path.join(packagesDirectory, directory);
    const manifest = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8'));
    if (manifest.private) continue;
    const name: string = manifest.name;
    await access(path.join(root, 'LICENSE')).catch(() => problems.push(`${name}: no LICENSE`));
    if (!(manifest.keywords?.length > 0)) problems.push(`${name}: no keywords`);
    if (manifest.homepage !== `https://www.npmjs.com/package/${name}`) {
      problems.push(`${name}: homepage ${manifest.homepage}`);
    }
    if (manifest.exports?.['.']?.default === undefined)
      problems.push(`${name}: no default condition`);
    // Libraries share the app's core; the CLI, an application, brings its own.
    const library = name !== '@rlm/core' && name !== '@rlm/cli';
    if (library && manifest.dependencies?.['@rlm/core'] !== undefined) {
      problems.push(`${name}: @rlm/core is a dependency, not a peer`);
    }
  }
  expect(problems).toEqual([]);
});
