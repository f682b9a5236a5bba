import { Keyv, type KeyvStoreAdapter } from 'keyv';
import { describe, expect, test } from 'vitest';
import { createArtifactStore } from './create-artifact-store.js';
import { ArtifactCorruptError } from './errors/artifact-corrupt-error.js';
import { ArtifactStoreError } from './errors/artifact-store-error.js';
import { runArtifactStoreConformance } from './testing/run-artifact-store-conformance.js';

function memoryKeyv(map = new Map<string, unknown>()): Keyv {
  return new Keyv({ store: map, namespace: 'rlm' });
}

describe('one Keyv for everything', () => {
  runArtifactStoreConformance({
    name: 'one keyv',
    create: () => createArtifactStore({ keyv: memoryKeyv() }),
    api: { test, expect },
  });
});

describe('small chunks', () => {
  runArtifactStoreConformance({
    name: 'small chunks',
    create: () =>
      createArtifactStore({ keyv: memoryKeyv(), blobKeyv: memoryKeyv(), chunkChars: 1000 }),
    api: { test, expect },
  });
});

test('content is stored once however often it is stored', async () => {
  const content = new Map<string, unknown>();
  await using store = createArtifactStore({ keyv: memoryKeyv(), blobKeyv: memoryKeyv(content) });
  const text = 'a'.repeat(10_000);
  for (let round = 0; round < 3; round += 1) {
    await store.store(text);
    await store.store(new TextEncoder().encode(text));
  }
  await store.put('a', { type: 'text', value: text, description: 'a' });
  await store.put('b', { type: 'text', value: text, description: 'b' });
  // One blob for the text, one for the JSON of the value the two records share.
  expect(content.size).toBe(2);
  expect((await store.list()).length).toBe(2);
});

test('text chunks never split a surrogate pair', async () => {
  await using store = createArtifactStore({ keyv: memoryKeyv(), chunkChars: 2 });
  const text = 'a😀b😀😀c';
  const ref = await store.store(text);
  expect(await store.load(ref.id)).toBe(text);
});

test('a foreign value written through Keyv is an error naming the key', async () => {
  const keyv = memoryKeyv();
  const ref = await createArtifactStore({ keyv }).store('hello');
  await keyv.set(`blob:${ref.id}`, { kind: 'rlm.blob', version: 1, id: ref.id });
  // A second store over the same Keyv, as another process would open it.
  await using store = createArtifactStore({ keyv });
  const error = await store.load(ref.id).catch((caught: unknown) => caught);
  expect(ArtifactCorruptError.isInstance(error)).toBe(true);
  expect(error).toMatchObject({ key: `rlm:blob:${ref.id}` });
  expect((error as Error).message).toContain(`"rlm:blob:${ref.id}"`);
  expect((error as Error).message).toContain('"sha256"');
  await keyv.set(`blob:${ref.id}`, 'just a string');
  await expect(store.list()).rejects.toMatchObject({ key: `rlm:blob:${ref.id}` });
});

test('raw garbage in the backing store is an error naming the key, never a missing key', async () => {
  const map = new Map<string, unknown>();
  await using store = createArtifactStore({ keyv: memoryKeyv(map) });
  await store.put('report', { type: 'data', value: 1, description: 'r' });
  await store.saveCheckpoint({
    runKey: 'run',
    callId: 'root',
    iteration: 1,
    transcript: [],
    variableNames: [],
    variables: {},
    budget: {
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      modelCalls: 0,
      elapsedMs: 0,
    },
  });
  const recordKey = [...map.keys()].find((key) => key.startsWith('rlm:record:'))!;
  const headKey = [...map.keys()].find((key) => key.startsWith('rlm:checkpoint-head:'))!;
  for (const garbage of [
    '{not json',
    'null',
    '42',
    '{"value":{"kind":"rlm.record","version":2}}',
  ]) {
    map.set(recordKey, garbage);
    const error = await store.get('report').catch((caught: unknown) => caught);
    expect(error, garbage).toMatchObject({ name: 'ArtifactCorruptError', key: recordKey });
    await expect(store.put('report', { type: 'data', value: 1, description: 'r' })).rejects.toThrow(
      recordKey,
    );
    map.set(headKey, garbage);
    await expect(store.latestCheckpoint('run')).rejects.toMatchObject({
      name: 'ArtifactCorruptError',
      key: headKey,
    });
  }
});

test('damaged or missing blob content is detected on load', async () => {
  const content = new Map<string, unknown>();
  const keyv = memoryKeyv();
  await using store = createArtifactStore({
    keyv,
    blobKeyv: memoryKeyv(content),
    chunkChars: 4,
  });
  const ref = await store.store('abcdefgh');
  const reopened = createArtifactStore({ keyv, blobKeyv: memoryKeyv(content), chunkChars: 4 });
  const chunkKey = [...content.keys()].find((key) => key.endsWith(':1'))!;
  expect(chunkKey).toMatch(new RegExp(`^rlm:chunk:${ref.id}:[0-9a-f]{16}:1$`));
  const original = content.get(chunkKey);
  content.set(chunkKey, JSON.stringify({ value: 'efgX' }));
  await expect(reopened.load(ref.id)).rejects.toMatchObject({
    name: 'ArtifactCorruptError',
    key: `rlm:blob:${ref.id}`,
  });
  content.delete(chunkKey);
  await expect(reopened.load(ref.id)).rejects.toThrow('chunk 1 of 2 is missing');
  content.set(chunkKey, original);
  expect(await reopened.load(ref.id)).toBe('abcdefgh');
});

test('a record whose value blob is gone is corrupt, not missing', async () => {
  const content = new Map<string, unknown>();
  const index = new Map<string, unknown>();
  const open = () =>
    createArtifactStore({ keyv: memoryKeyv(index), blobKeyv: memoryKeyv(content) });
  await open().put('big', { type: 'text', value: 'z'.repeat(10_000), description: 'big' });
  for (const key of index.keys()) if (key.startsWith('rlm:blob:')) index.delete(key);
  await using store = open();
  await expect(store.get('big')).rejects.toMatchObject({ name: 'ArtifactCorruptError' });
  await expect(store.resolveReferences('@big')).rejects.toMatchObject({
    name: 'ArtifactCorruptError',
  });
});

test('store failures reject with ArtifactStoreError, on reads and on writes', async () => {
  const entries = new Map<string, unknown>();
  const failing = { reads: false, writes: false };
  const adapter = {
    opts: {},
    get: async (key: string) => {
      if (failing.reads) throw new Error('connection reset');
      return entries.get(key);
    },
    set: async (key: string, value: unknown) => {
      if (failing.writes) throw new Error('disk full');
      entries.set(key, value);
    },
    delete: async (key: string) => entries.delete(key),
    clear: async () => entries.clear(),
    on: () => adapter,
  } as unknown as KeyvStoreAdapter;
  await using quiet = createArtifactStore({ keyv: new Keyv({ store: adapter }) });
  await using loud = createArtifactStore({
    keyv: new Keyv({ store: adapter, throwOnErrors: true }),
  });
  await quiet.put('x', { type: 'data', value: 1, description: 'x' });
  failing.reads = true;
  for (const store of [quiet, loud]) {
    const error = await store.get('x').catch((caught: unknown) => caught);
    expect(ArtifactStoreError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('connection reset');
  }
  failing.reads = false;
  failing.writes = true;
  await expect(loud.store('more')).rejects.toMatchObject({
    name: 'ArtifactStoreError',
    message: expect.stringContaining('disk full'),
  });
  await expect(quiet.store('more')).rejects.toMatchObject({
    name: 'ArtifactStoreError',
    message: expect.stringContaining('throwOnErrors'),
  });
  await expect(quiet.list()).rejects.toThrow('cannot enumerate');
});

test("entries ignore the Keyv's default ttl: nothing expires", async () => {
  const keyv = new Keyv({ store: new Map(), namespace: 'rlm', ttl: 1 });
  await using store = createArtifactStore({ keyv });
  const ref = await store.store('lasting');
  await store.put('x', { type: 'data', value: 1, description: 'x' });
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(await store.load(ref.id)).toBe('lasting');
  expect((await store.get('x'))?.value).toBe(1);
});

test('records in one process never lose catalog entries to concurrent puts', async () => {
  await using store = createArtifactStore({ keyv: memoryKeyv() });
  const names = Array.from({ length: 40 }, (_, index) => `n${index}`);
  await Promise.all(
    names.map((name) => store.put(name, { type: 'data', value: name, description: name })),
  );
  expect((await store.names()).sort()).toEqual([...names].sort());
  const runs = await Promise.all(
    Array.from({ length: 10 }, (_, iteration) =>
      store.saveCheckpoint({
        runKey: 'run',
        callId: 'root',
        iteration,
        transcript: [],
        variableNames: [],
        variables: {},
        budget: {
          inputTokens: 0,
          outputTokens: 0,
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
          modelCalls: 0,
          elapsedMs: 0,
        },
      }),
    ),
  );
  expect(runs.map((summary) => summary.sequence).sort((a, b) => a - b)).toEqual([
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
  ]);
  expect((await store.listCheckpoints('run')).length).toBe(10);
});

describe('checkpoint budget', () => {
  const base = {
    runKey: 'run',
    callId: 'root',
    iteration: 1,
    transcript: [],
    variableNames: [],
    variables: {},
  };

  test('keeps cache tokens, cost and unpriced calls across a save and a reopen', async () => {
    const map = new Map<string, unknown>();
    const budget = {
      inputTokens: 10,
      outputTokens: 2,
      cacheReadTokens: 900,
      cacheWriteTokens: 300,
      modelCalls: 3,
      costUsd: 0.0123,
      unpricedModelCalls: 1,
      elapsedMs: 7,
    };
    await using store = createArtifactStore({ keyv: memoryKeyv(map) });
    await store.saveCheckpoint({ ...base, budget });
    const reopened = createArtifactStore({ keyv: memoryKeyv(map) });
    expect((await reopened.latestCheckpoint('run'))?.budget).toEqual(budget);
  });

  test('a checkpoint saved before cache tokens were counted reads them as 0', async () => {
    const map = new Map<string, unknown>();
    await using store = createArtifactStore({ keyv: memoryKeyv(map) });
    await store.saveCheckpoint({
      ...base,
      budget: {
        inputTokens: 4,
        outputTokens: 1,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        modelCalls: 1,
        elapsedMs: 1,
      },
    });
    const entryKey = [...map.keys()].find((key) => key.startsWith('rlm:checkpoint:'))!;
    const stored = JSON.parse(map.get(entryKey) as string);
    delete stored.value.budget.cacheReadTokens;
    delete stored.value.budget.cacheWriteTokens;
    map.set(entryKey, JSON.stringify(stored));
    expect((await store.latestCheckpoint('run'))?.budget).toEqual({
      inputTokens: 4,
      outputTokens: 1,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      modelCalls: 1,
      elapsedMs: 1,
    });
  });

  test('a negative cost is refused when saving', async () => {
    await using store = createArtifactStore({ keyv: memoryKeyv() });
    await expect(
      store.saveCheckpoint({
        ...base,
        budget: {
          inputTokens: 0,
          outputTokens: 0,
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
          modelCalls: 0,
          costUsd: -1,
          elapsedMs: 0,
        },
      }),
    ).rejects.toThrow(/budget\.costUsd/);
  });
});
