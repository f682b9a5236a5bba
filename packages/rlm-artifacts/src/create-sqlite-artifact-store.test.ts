import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import KeyvSqlite from '@keyv/sqlite';
import { Keyv } from 'keyv';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { acquireRunLease } from './acquire-run-lease.js';
import { createSqliteArtifactStore } from './create-sqlite-artifact-store.js';
import { type Message, runKey } from '@rlm/core';
import { bundlePackage, childCacheDirectory } from './test-support/bundle-package.js';
import { runArtifactStoreConformance } from './testing/run-artifact-store-conformance.js';
import { runCatalogWritersConformance } from './testing/run-catalog-writers-conformance.js';
import { runRunLeaseConformance } from './testing/run-run-lease-conformance.js';

const run = promisify(execFile);
let directory: string;
let files = 0;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'rlm-artifacts-'));
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
}, 60_000);

function freshPath(): string {
  files += 1;
  return join(directory, `store-${files}`, 'rlm.sqlite');
}

/** Runs SQL on the file through a connection of its own, as another process would. */
async function query<T>(path: string, sql: string): Promise<T[]> {
  const connection = new KeyvSqlite({ uri: `sqlite://${path}`, table: 'rlm_index' });
  try {
    return await connection.query(sql);
  } finally {
    await connection.disconnect();
  }
}

runArtifactStoreConformance({
  name: 'sqlite',
  create: () => createSqliteArtifactStore({ path: freshPath() }),
  api: { test, expect },
});
runRunLeaseConformance({
  name: 'sqlite',
  create: () => createSqliteArtifactStore({ path: freshPath() }),
  api: { test, expect },
});

runCatalogWritersConformance({
  name: 'sqlite',
  create: async () => {
    const bundle = await bundlePackage();
    const module = join(childCacheDirectory, 'open-sqlite-store.mjs');
    await writeFile(
      module,
      `const { createSqliteArtifactStore } = await import(${JSON.stringify(bundle)});
export const openStore = (path) => createSqliteArtifactStore({ path });`,
    );
    return { module, location: freshPath() };
  },
  api: { test, expect },
  processes: 16,
});

test('a catalog written as one entry (before catalog rows) is still listed, and new names follow it', async () => {
  const path = freshPath();
  const before = await createSqliteArtifactStore({ path, scope: 'old' });
  await before.close();
  // The one-entry catalog earlier versions wrote, with two names.
  const entry = (name: string, timestamp: number) => ({
    name,
    type: 'data',
    description: name,
    purpose: name,
    timestamp,
    valueKind: 'string',
    valueLength: 1,
    size: 3,
  });
  const keyv = new Keyv({
    store: new KeyvSqlite({ uri: `sqlite://${path}`, table: 'rlm_index' }),
    namespace: 'rlm',
  });
  const { keyDigest } = await import('./sha256.js');
  await keyv.set(`records:${keyDigest('old')}`, {
    kind: 'rlm.records',
    version: 1,
    entries: [entry('first', 1), entry('second', 2)],
  });
  await keyv.disconnect();
  await using store = await createSqliteArtifactStore({ path, scope: 'old' });
  await store.put('third', { type: 'data', value: 'c', description: 'third' });
  await store.put('first', { type: 'data', value: 'a', description: 'first', timestamp: 1 });
  expect(await store.names()).toEqual(['first', 'second', 'third']);
  const rows = await query<{ count: number }>(
    path,
    "SELECT count(*) AS count FROM rlm_index WHERE key LIKE 'rlm:catalog:%'",
  );
  expect(rows[0]!.count).toBe(2);
});

test('the database runs in WAL mode with 64 KiB pages', async () => {
  const path = freshPath();
  await using store = await createSqliteArtifactStore({ path });
  await store.store('some content');
  expect(existsSync(`${path}-wal`)).toBe(true);
  expect(await query(path, 'PRAGMA journal_mode')).toEqual([{ journal_mode: 'wal' }]);
  expect(await query(path, 'PRAGMA page_size')).toEqual([{ page_size: 65_536 }]);
});

test('bytes are stored as they are (BLOB chunks, no base64), text as text; both load back after reopening', async () => {
  const path = freshPath();
  const bytes = new Uint8Array(5 * 1024 * 1024 + 3).map((_, index) => (index * 31) % 256);
  let bytesId: string;
  let textId: string;
  {
    await using store = await createSqliteArtifactStore({ path });
    bytesId = (await store.store(bytes)).id;
    textId = (await store.store('plain text')).id;
  }
  const chunks = await query<{ key: string; type: string; size: number }>(
    path,
    "SELECT key, typeof(value) AS type, length(value) AS size FROM rlm_blobs WHERE key LIKE 'rlm:chunk:%' ORDER BY key",
  );
  const ofBytes = chunks.filter((chunk) => chunk.key.includes(bytesId));
  // Two chunks (4 MiB each at most) holding exactly the bytes: base64 would take a third more.
  expect(ofBytes.map((chunk) => chunk.type)).toEqual(['blob', 'blob']);
  expect(ofBytes.reduce((total, chunk) => total + chunk.size, 0)).toBe(bytes.byteLength);
  expect(chunks.find((chunk) => chunk.key.includes(textId))?.type).toBe('text');
  await using reopened = await createSqliteArtifactStore({ path });
  expect(Buffer.compare(Buffer.from(await reopened.loadBytes(bytesId)), Buffer.from(bytes))).toBe(
    0,
  );
  expect(await reopened.load(textId)).toBe('plain text');
});

// Several seconds on an idle machine, past 20 s once on a loaded 2-core one: a generous bound.
test('a 100 MB value stores once and loads back whole, as a blob and as a record', {
  timeout: 300_000,
}, async () => {
  const path = freshPath();
  await using store = await createSqliteArtifactStore({ path });
  const value = '0123456789abcdef'.repeat(6_553_600);
  const ref = await store.store(value);
  expect(ref.size).toBe(104_857_600);
  expect(await store.store(value)).toEqual(ref);
  expect((await store.load(ref.id)) === value).toBe(true);
  await store.put('huge', { type: 'text', value, description: 'a huge text' });
  expect(((await store.get('huge'))?.value as string) === value).toBe(true);
  const rows = await query<{ chunks: number }>(
    path,
    "SELECT COUNT(*) AS chunks FROM rlm_blobs WHERE key LIKE 'rlm:chunk:%'",
  );
  // 25 chunks of 4 Mi characters for the text, 26 for the JSON of the record's value (2 quotes more).
  expect(rows).toEqual([{ chunks: 51 }]);
});

test('two-byte text survives chunk boundaries, surrogate pairs included', {
  timeout: 120_000,
}, async () => {
  await using store = await createSqliteArtifactStore({ path: freshPath() });
  const chunk = 4 * 1024 * 1024;
  // A pair straddles the first chunk boundary, another ends the text.
  const value = `${'é'.repeat(chunk - 1)}😀${'ü’'.repeat(chunk / 2)}😀`;
  const ref = await store.store(value);
  expect(ref.size).toBe(Buffer.byteLength(value, 'utf8'));
  expect((await store.load(ref.id)) === value).toBe(true);
});

test('a value written through Keyv that is not an artifact entry is an error naming the key', async () => {
  const path = freshPath();
  const writer = await createSqliteArtifactStore({ path });
  await writer.put('report', { type: 'data', value: { ok: true }, description: 'report' });
  await writer.close();
  const [row] = await query<{ key: string }>(
    path,
    "SELECT key FROM rlm_index WHERE key LIKE 'rlm:record:%'",
  );
  const keyv = new Keyv({
    store: new KeyvSqlite({ uri: `sqlite://${path}`, table: 'rlm_index' }),
    namespace: 'rlm',
  });
  await keyv.set(row!.key.slice('rlm:'.length), {
    kind: 'rlm.record',
    version: 1,
    name: 7,
    valueJson: '1',
  });
  await keyv.disconnect();
  await using store = await createSqliteArtifactStore({ path });
  const error = await store.get('report').catch((caught: unknown) => caught);
  expect(error).toMatchObject({ name: 'ArtifactCorruptError', key: row!.key });
  expect((error as Error).message).toContain(row!.key);
  expect((error as Error).message).toContain('"name"');
});

test('records, blobs and checkpoints survive closing and reopening the file', async () => {
  const path = freshPath();
  const key = runKey('Which vendors?', 'context-hash');
  const first = await createSqliteArtifactStore({ path, scope: key });
  const ref = await first.store('kept');
  await first.put('summary', { type: 'text', value: 'Acme leads', description: 'summary' });
  for (let iteration = 1; iteration <= 3; iteration += 1) {
    await first.saveCheckpoint({
      runKey: key,
      callId: 'root',
      iteration,
      transcript: Array.from({ length: iteration }, (_, index) => ({
        role: index % 2 === 0 ? ('user' as const) : ('assistant' as const),
        content: `message ${index}`,
      })),
      variableNames: ['count'],
      variables: { count: iteration },
      budget: {
        inputTokens: iteration,
        outputTokens: 1,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        modelCalls: iteration,
        elapsedMs: 5,
      },
    });
  }
  await first.close();
  await using second = await createSqliteArtifactStore({ path, scope: key });
  expect(await second.load(ref.id)).toBe('kept');
  expect((await second.get('summary'))?.value).toBe('Acme leads');
  const latest = await second.latestCheckpoint(key);
  expect(latest).toMatchObject({ sequence: 3, iteration: 3, transcriptLength: 3 });
  expect(latest?.variables).toEqual({ count: 3 });
  expect((await second.listCheckpoints(key)).map((summary) => summary.sequence)).toEqual([3, 2, 1]);
});

test('other processes write; this one reads their latest checkpoints', {
  timeout: 60_000,
}, async () => {
  const bundle = await bundlePackage();
  const path = freshPath();
  const child = (query: string, count: number) =>
    run(process.execPath, [bundleScript, bundle, path, query, String(count)], { encoding: 'utf8' });
  await writeFile(bundleScript, childScript);
  // Two processes write at once: each waits for the other's write lock instead of failing.
  const outputs = await Promise.all([child('Which vendors?', 40), child('Which regions?', 30)]);
  expect(outputs.map((output) => output.stdout.trim())).toEqual(['done', 'done']);
  await using store = await createSqliteArtifactStore({ path });
  for (const [query, count] of [
    ['Which vendors?', 40],
    ['Which regions?', 30],
  ] as const) {
    const key = runKey(query, 'context-hash');
    const latest = await store.latestCheckpoint(key);
    expect(latest).toMatchObject({ iteration: count, variables: { n: count } });
    expect(latest?.transcript).toEqual([{ role: 'user', content: query }]);
    expect((await store.listCheckpoints(key)).length).toBe(count);
    expect((await store.scoped(key).get('answer'))?.value).toEqual({ query });
  }
  expect((await store.list()).length).toBeGreaterThanOrEqual(70);
});

test('an unusable path rejects with ArtifactStoreError', async () => {
  const file = join(directory, 'a-file');
  await writeFile(file, 'not a folder');
  await expect(createSqliteArtifactStore({ path: join(file, 'rlm.sqlite') })).rejects.toMatchObject(
    { name: 'ArtifactStoreError', message: expect.stringContaining(file) },
  );
});

const bundleScript = join(childCacheDirectory, 'child.mjs');

const childScript = `
const [bundle, path, query, count] = process.argv.slice(2);
const { createSqliteArtifactStore, runKey } = await import(bundle);
const key = runKey(query, 'context-hash');
const store = await createSqliteArtifactStore({ path, scope: key });
await store.put('answer', { type: 'data', value: { query }, description: 'the answer' });
for (let iteration = 1; iteration <= Number(count); iteration += 1) {
  await store.store(query + ' blob ' + iteration);
  await store.saveCheckpoint({
    runKey: key,
    callId: 'root',
    iteration,
    transcript: [{ role: 'user', content: query }],
    variableNames: ['n'],
    variables: { n: iteration },
    budget: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, modelCalls: iteration, elapsedMs: 0 },
  });
}
await store.close();
console.log('done');
`;

test('another process holding a run lease is refused by pid; once it is killed, its lease is taken over', {
  timeout: 60_000,
}, async () => {
  const bundle = await bundlePackage();
  const path = freshPath();
  const script = join(childCacheDirectory, 'hold-lease.mjs');
  await writeFile(
    script,
    `const { acquireRunLease, createSqliteArtifactStore } = await import(process.argv[2]);
const store = await createSqliteArtifactStore({ path: process.argv[3] });
await acquireRunLease(store, 'run-held');
console.log('held');
setInterval(() => {}, 1000);`,
  );
  const child = spawn(process.execPath, [script, bundle, path], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.on('close', resolve));
  await new Promise<void>((resolve) =>
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      if (text.includes('held')) resolve();
    }),
  );
  await using store = await createSqliteArtifactStore({ path });
  const refused = await acquireRunLease(store, 'run-held').catch((error: unknown) => error);
  expect(refused).toMatchObject({ name: 'RunLeaseHeldError', holder: { pid: child.pid } });
  expect((refused as Error).message).toContain(`process ${child.pid}`);
  child.kill('SIGKILL');
  await exited;
  await using lease = await acquireRunLease(store, 'run-held');
  expect(lease.tookOverFrom?.pid).toBe(child.pid);
  expect(lease.holder.pid).toBe(process.pid);
});

test('a blob write the disk cannot take with its headroom is refused before anything is written', async () => {
  const path = freshPath();
  const store = await createSqliteArtifactStore({ path, diskHeadroomBytes: 2 ** 52 });
  try {
    await expect(store.store('some text')).rejects.toThrow(
      /the disk holding the store is too full/,
    );
    const blobs = await query<{ count: number }>(path, 'SELECT count(*) AS count FROM rlm_blobs');
    const index = await query<{ count: number }>(path, 'SELECT count(*) AS count FROM rlm_index');
    expect(blobs[0]!.count).toBe(0);
    expect(index[0]!.count).toBe(0);
  } finally {
    await store.close();
  }
  await expect(createSqliteArtifactStore({ path, diskHeadroomBytes: -1 })).rejects.toThrow(
    /diskHeadroomBytes must be an integer >= 0, got -1/,
  );
});

test('a checkpoint entry and its head are committed together: a refused head leaves no entry behind', async () => {
  const path = freshPath();
  await using store = await createSqliteArtifactStore({ path });
  const budget = { inputTokens: 0, outputTokens: 0, modelCalls: 1, elapsedMs: 0 };
  const first: Message[] = [{ role: 'user', content: 'query' }];
  const save = (iteration: number, transcript: Message[]) =>
    store.saveCheckpoint({
      runKey: 'run',
      callId: 'root',
      iteration,
      transcript,
      variableNames: [],
      variables: {},
      budget: { ...budget, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });
  await save(1, first);
  const entries = async () =>
    (
      await query<{ count: number }>(
        path,
        "SELECT COUNT(*) AS count FROM rlm_index WHERE key LIKE 'rlm:checkpoint:%'",
      )
    )[0]!.count;
  expect(await entries()).toBe(1);
  // Another connection makes SQLite refuse to move any checkpoint head.
  await query(
    path,
    "CREATE TRIGGER refuse_head BEFORE UPDATE ON rlm_index WHEN NEW.key LIKE 'rlm:checkpoint-head:%' BEGIN SELECT RAISE(ABORT, 'head refused'); END",
  );
  const second: Message[] = [...first, { role: 'assistant', content: 'step 2' }];
  await expect(save(2, second)).rejects.toThrow(/head refused/);
  // Written apart, the entry would be there with no head pointing at it.
  expect(await entries()).toBe(1);
  expect((await store.latestCheckpoint('run'))?.iteration).toBe(1);
  await query(path, 'DROP TRIGGER refuse_head');
  await save(3, [...second, { role: 'user', content: 'output 2' }]);
  const latest = await store.latestCheckpoint('run');
  expect(latest?.iteration).toBe(3);
  expect(latest?.transcript).toHaveLength(3);
  expect((await store.listCheckpoints('run')).map((summary) => summary.iteration)).toEqual([3, 1]);
});

test('a save notices a head another store moved since its last save, and chains after it', async () => {
  const path = freshPath();
  await using mine = await createSqliteArtifactStore({ path });
  await using other = await createSqliteArtifactStore({ path });
  const transcript: Message[] = [{ role: 'user', content: 'query' }];
  const save = (store: typeof mine, iteration: number) => {
    transcript.push({ role: 'assistant', content: `step ${iteration}` });
    return store.saveCheckpoint({
      runKey: 'run',
      callId: 'root',
      iteration,
      transcript: [...transcript],
      variableNames: [],
      variables: {},
      budget: {
        inputTokens: 0,
        outputTokens: 0,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        modelCalls: iteration,
        elapsedMs: 0,
      },
    });
  };
  await save(mine, 1);
  await save(mine, 2);
  // Another process's store saves in between: this store's memory of the head is stale.
  await save(other, 3);
  await save(mine, 4);
  const summaries = await mine.listCheckpoints('run');
  expect(summaries.map((summary) => [summary.iteration, summary.sequence])).toEqual([
    [4, 4],
    [3, 3],
    [2, 2],
    [1, 1],
  ]);
  const latest = await other.latestCheckpoint('run');
  expect(latest?.transcript).toEqual(transcript);
});
