import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import KeyvSqlite from '@keyv/sqlite';
import { Keyv } from 'keyv';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { collectGarbage } from './collect-garbage.js';
import { createArtifactStore } from './create-artifact-store.js';
import { createSqliteArtifactStore } from './create-sqlite-artifact-store.js';
import { bundlePackage, childCacheDirectory } from './test-support/bundle-package.js';

let directory: string;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'rlm-artifacts-gc-'));
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

/** A Map whose deletes fail like a full disk when asked (writes are made to fail per test). */
class FailingMap extends Map<string, unknown> {
  failDeletes = false;

  override delete(key: string): boolean {
    if (this.failDeletes) throw new Error('SQLITE_FULL: database or disk is full');
    return super.delete(key);
  }
}

function storeOver(index: Map<string, unknown>, content: FailingMap) {
  return createArtifactStore({
    keyv: new Keyv({ store: index, namespace: 'rlm', throwOnErrors: true }),
    blobKeyv: new Keyv({ store: content, namespace: 'rlm', throwOnErrors: true }),
    chunkChars: 16,
  });
}

test('a blob write that fails half-way removes its chunks and its upload marker at once', async () => {
  const index = new Map<string, unknown>();
  const content = new FailingMap();
  await using store = storeOver(index, content);
  const kept = await store.store('kept from before the failure, in several chunks');
  const chunksBefore = [...content.keys()];
  // Fails on the third chunk.
  let writes = 0;
  const set = content.set.bind(content);
  content.set = (key, value) => {
    writes += 1;
    if (writes === 3) throw new Error('SQLITE_FULL: database or disk is full');
    return set(key, value);
  };
  await expect(store.store('x'.repeat(200))).rejects.toMatchObject({
    name: 'ArtifactStoreError',
    message: expect.stringContaining('disk is full'),
  });
  expect([...content.keys()]).toEqual(chunksBefore);
  expect([...index.keys()].filter((key) => key.includes(':upload:'))).toEqual([]);
  expect(await store.load(kept.id)).toBe('kept from before the failure, in several chunks');
  expect(await collectGarbage(store)).toEqual({ uploads: 0, chunks: 0, bytes: 0 });
});

test('chunks a failed write could not remove are reclaimed by collectGarbage, committed blobs kept', async () => {
  const index = new Map<string, unknown>();
  const content = new FailingMap();
  await using store = storeOver(index, content);
  const kept = await store.store('kept: a committed blob of a few chunks');
  const chunksBefore = content.size;
  let writes = 0;
  const set = content.set.bind(content);
  content.set = (key, value) => {
    writes += 1;
    if (writes === 4) throw new Error('SQLITE_FULL: database or disk is full');
    return set(key, value);
  };
  content.failDeletes = true;
  await expect(store.store('y'.repeat(100))).rejects.toMatchObject({ name: 'ArtifactStoreError' });
  content.failDeletes = false;
  expect(content.size).toBe(chunksBefore + 3);
  // The writer (this process) is alive and recent: its upload is left alone...
  expect(await collectGarbage(store)).toEqual({ uploads: 0, chunks: 0, bytes: 0 });
  // ...unless it is older than the bound.
  const freed = await collectGarbage(store, { staleAfterMs: 0 });
  expect(freed).toMatchObject({ uploads: 1, chunks: 3 });
  expect(freed.bytes).toBeGreaterThanOrEqual(48);
  expect(content.size).toBe(chunksBefore);
  expect([...index.keys()].filter((key) => key.includes(':upload:'))).toEqual([]);
  expect(await store.load(kept.id)).toBe('kept: a committed blob of a few chunks');
  expect(await collectGarbage(store, { staleAfterMs: 0 })).toEqual({
    uploads: 0,
    chunks: 0,
    bytes: 0,
  });
});

test('chunks of the older layout that no blob refers to are reclaimed', async () => {
  const index = new Map<string, unknown>();
  const content = new FailingMap();
  await using store = storeOver(index, content);
  const kept = await store.store('kept');
  content.set('rlm:chunk:0123456789ab:0', JSON.stringify({ value: 'orphan', expires: null }));
  content.set('rlm:chunk:0123456789ab:1', JSON.stringify({ value: 'orphan', expires: null }));
  const freed = await collectGarbage(store);
  expect(freed).toMatchObject({ uploads: 0, chunks: 2 });
  expect(await store.load(kept.id)).toBe('kept');
});

test('collectGarbage refuses a store that is not from @rlm/artifacts', async () => {
  const foreign = { scope: 'x' } as unknown as Parameters<typeof collectGarbage>[0];
  expect(() => collectGarbage(foreign)).toThrow(/needs a store made by @rlm\/artifacts/);
});

async function chunkRows(path: string): Promise<number> {
  const connection = new KeyvSqlite({ uri: `sqlite://${path}`, table: 'rlm_blobs' });
  try {
    const rows = (await connection.query(
      "SELECT COUNT(*) AS count FROM rlm_blobs WHERE key LIKE 'rlm:chunk:%'",
    )) as { count: number }[];
    return rows[0]!.count;
  } finally {
    await connection.disconnect();
  }
}

test('SIGKILL in the middle of a blob write, then collectGarbage frees its chunks', {
  timeout: 120_000,
}, async () => {
  const bundle = await bundlePackage();
  const path = join(directory, 'killed', 'rlm.sqlite');
  const before = await createSqliteArtifactStore({ path });
  const kept = await before.store('stored before the crash');
  await before.close();
  const script = join(childCacheDirectory, 'write-huge.mjs');
  await writeFile(
    script,
    `const { createSqliteArtifactStore } = await import(process.argv[2]);
const store = await createSqliteArtifactStore({ path: process.argv[3] });
console.log('writing');
await store.store('0123456789abcdef'.repeat(16 * 1024 * 1024));
console.log('committed');`,
  );
  const child = spawn(process.execPath, [script, bundle, path], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    stdout += text;
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.on('close', (_, signal) => resolve(signal)),
  );
  // Kill once a few chunks are on disk: the 256 MiB write takes 64 chunks.
  while ((await chunkRows(path)) < 4) await new Promise((resolve) => setTimeout(resolve, 20));
  child.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
  expect(stdout).not.toContain('committed');
  const leftBehind = await chunkRows(path);
  expect(leftBehind).toBeGreaterThanOrEqual(4);

  await using store = await createSqliteArtifactStore({ path });
  expect((await store.list()).map((ref) => ref.id)).toEqual([kept.id]);
  const freed = await collectGarbage(store);
  expect(freed).toMatchObject({ uploads: 1, chunks: leftBehind - 1 });
  expect(freed.bytes).toBeGreaterThanOrEqual((leftBehind - 1) * 4 * 1024 * 1024);
  expect(await chunkRows(path)).toBe(1);
  expect(await store.load(kept.id)).toBe('stored before the crash');
  expect(await collectGarbage(store)).toEqual({ uploads: 0, chunks: 0, bytes: 0 });
});
