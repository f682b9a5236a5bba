import { createHash } from 'node:crypto';
import type { ArtifactStore, CheckpointInput } from '@rlm/core';
import type { ConformanceSuiteSettings } from '@rlm/core/testing';
import type { ExpectStatic, TestAPI } from 'vitest';

/**
 * Settings of {@link runArtifactStoreConformance}, in the shape of every conformance suite (`{ name, create, api }`):
 * `create` must return a new, empty store each call; `api` is vitest's `{ test, expect }`.
 */
export type ArtifactStoreConformanceOptions = ConformanceSuiteSettings<
  () => ArtifactStore | Promise<ArtifactStore>,
  { readonly test: TestAPI; readonly expect: ExpectStatic }
>;

/**
 * The contract every `ArtifactStore` must keep, as vitest tests (the pattern of
 * `@keyv/test-suite`). `create` must return a new, empty store each call; each test closes the
 * store it created. Errors are recognised by `name`, so any implementation can pass.
 *
 * ```ts
 * import { expect, test } from 'vitest';
 * runArtifactStoreConformance({
 *   name: 'memory',
 *   create: () => createMemoryArtifactStore(),
 *   api: { test, expect },
 * });
 * ```
 */
export function runArtifactStoreConformance(options: ArtifactStoreConformanceOptions): void {
  const { name: subject, create, api } = options;
  const { test, expect } = api;
  const withStore = (name: string, body: (store: ArtifactStore) => Promise<void>) =>
    test(`ArtifactStore conformance (${subject}): ${name}`, async () => {
      const store = await create();
      try {
        await body(store);
      } finally {
        await store.close();
      }
    });

  withStore('the same content gets the same id, the first 12 hex of its SHA-256', async (store) => {
    const text = 'vendors: Acme, Globex, Initech ✓ 🚀';
    const first = await store.store(text);
    const again = await store.store(text);
    const bytes = await store.store(new TextEncoder().encode(text));
    expect(first.id).toBe(createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 12));
    expect(again).toEqual(first);
    expect(bytes).toEqual(first);
    expect(first.size).toBe(Buffer.byteLength(text, 'utf8'));
    expect(Number.isFinite(first.createdAt)).toBe(true);
    const other = await store.store(`${text}!`);
    expect(other.id).not.toBe(first.id);
    const listed = await store.list();
    expect(listed.filter((ref) => ref.id === first.id)).toEqual([first]);
    expect(listed.map((ref) => ref.id).sort()).toEqual([first.id, other.id].sort());
  });

  withStore('blobs load as text and as bytes; has reports presence', async (store) => {
    const text = 'line one\nline two: ünïcödé, 漢字, 😀';
    const ref = await store.store(text);
    expect(await store.load(ref.id)).toBe(text);
    expect(new TextDecoder().decode(await store.loadBytes(ref.id))).toBe(text);
    expect(await store.has(ref.id)).toBe(true);
    expect(await store.has('000000000000')).toBe(false);
    expect(await store.has('../../etc/passwd')).toBe(false);
    const empty = await store.store('');
    expect(await store.load(empty.id)).toBe('');
    expect(empty.size).toBe(0);
  });

  withStore('binary blobs round-trip as bytes; loading them as text rejects', async (store) => {
    const bytes = new Uint8Array([0, 255, 254, 1, 128, 10, 13]);
    const ref = await store.store(bytes);
    expect(ref.size).toBe(bytes.length);
    expect([...(await store.loadBytes(ref.id))]).toEqual([...bytes]);
    await expect(store.load(ref.id)).rejects.toMatchObject({ name: 'ArtifactValueError' });
  });

  withStore('unknown blobs and malformed text reject with typed errors', async (store) => {
    await expect(store.load('abcdefabcdef')).rejects.toMatchObject({
      name: 'ArtifactNotFoundError',
    });
    await expect(store.loadBytes('not an id')).rejects.toMatchObject({
      name: 'ArtifactNotFoundError',
    });
    await expect(store.store('lone \ud800 surrogate')).rejects.toMatchObject({
      name: 'ArtifactValueError',
    });
  });

  withStore('records round-trip with defaults filled in', async (store) => {
    const entry = await store.put('config', {
      type: 'data',
      value: { port: 3000, hosts: ['a', 'b'], nested: { ok: true, none: null } },
      description: 'Server configuration',
      timestamp: 1_700_000_000_000,
    });
    expect(entry).toEqual({
      name: 'config',
      type: 'data',
      description: 'Server configuration',
      purpose: 'Server configuration',
      timestamp: 1_700_000_000_000,
      valueKind: 'object',
      valueLength: 3,
      size: Buffer.byteLength(
        JSON.stringify({ port: 3000, hosts: ['a', 'b'], nested: { ok: true, none: null } }),
      ),
    });
    expect(await store.get('config')).toEqual({
      type: 'data',
      value: { port: 3000, hosts: ['a', 'b'], nested: { ok: true, none: null } },
      description: 'Server configuration',
      purpose: 'Server configuration',
      timestamp: 1_700_000_000_000,
      metadata: {},
    });
    expect(await store.get('missing')).toBeUndefined();
  });

  withStore('large record values round-trip', async (store) => {
    const value = {
      rows: Array.from({ length: 5000 }, (_, index) => ({ index, text: `row ${index}` })),
    };
    const entry = await store.put('rows', { type: 'table', value, description: 'rows' });
    expect(entry.valueKind).toBe('object');
    expect((await store.get('rows'))?.value).toEqual(value);
    const text = 'x'.repeat(100_000);
    expect(
      (await store.put('text', { type: 'text', value: text, description: 't' })).valueLength,
    ).toBe(100_000);
    expect((await store.get('text'))?.value).toBe(text);
  });

  withStore(
    'records are immutable: same content is idempotent, different rejects',
    async (store) => {
      const first = await store.put('report', {
        type: 'report',
        value: { a: 1, b: [1, 2] },
        description: 'the report',
        metadata: { tool: 'x', run: 1 },
        timestamp: 1,
      });
      const again = await store.put('report', {
        type: 'report',
        value: { b: [1, 2], a: 1 },
        description: 'the report',
        metadata: { run: 1, tool: 'x' },
        timestamp: 2,
      });
      expect(again).toEqual(first);
      await expect(
        store.put('report', {
          type: 'report',
          value: { a: 2, b: [1, 2] },
          description: 'the report',
        }),
      ).rejects.toMatchObject({ name: 'ArtifactConflictError' });
      await expect(
        store.put('report', {
          type: 'other',
          value: { a: 1, b: [1, 2] },
          description: 'the report',
          metadata: { tool: 'x', run: 1 },
        }),
      ).rejects.toMatchObject({ name: 'ArtifactConflictError' });
      expect((await store.get('report'))?.value).toEqual({ a: 1, b: [1, 2] });
      expect(await store.names()).toEqual(['report']);
    },
  );

  withStore('invalid records reject with ArtifactValueError', async (store) => {
    const invalid = [
      () => store.put('', { type: 'data', value: 1, description: '' }),
      () => store.put('x', { type: '', value: 1, description: '' }),
      () => store.put('x', { type: 'data', value: undefined, description: '' }),
      () => store.put('x', { type: 'data', value: 10n, description: '' }),
      () => store.put('x', { type: 'data', value: () => 1, description: '' }),
    ];
    for (const put of invalid) {
      await expect(put()).rejects.toMatchObject({ name: 'ArtifactValueError' });
    }
    expect(await store.names()).toEqual([]);
  });

  withStore('names are opaque keys: any string is stored apart from every other', async (store) => {
    const names = [
      'a/b',
      '../../etc/passwd',
      '..',
      '%',
      '_',
      'a_b',
      'A_B',
      'a%b',
      'ünï/cödé 漢字 😀',
      'with space',
      'line\nbreak',
      'quote"s',
      'record:x',
      '@at',
      'x'.repeat(2000),
    ];
    for (const [index, name] of names.entries()) {
      await store.put(name, { type: 'data', value: index, description: `#${index}` });
    }
    expect(await store.names()).toEqual(names);
    for (const [index, name] of names.entries()) {
      expect((await store.get(name))?.value).toBe(index);
    }
    expect(await store.get('a')).toBeUndefined();
    expect(await store.get('A_b')).toBeUndefined();
  });

  withStore('scopes keep records apart and share blobs', async (store) => {
    const runA = store.scoped('run-a');
    const runB = store.scoped('run-b');
    expect(runA.scope).toBe('run-a');
    await runA.put('summary', { type: 'text', value: 'A', description: 'a' });
    await runB.put('summary', { type: 'text', value: 'B', description: 'b' });
    expect((await runA.get('summary'))?.value).toBe('A');
    expect((await runB.get('summary'))?.value).toBe('B');
    expect(await store.names()).toEqual([]);
    const ref = await runA.store('shared');
    expect(await runB.load(ref.id)).toBe('shared');
  });

  withStore('@name references resolve through nested arrays and objects', async (store) => {
    await store.put('config', { type: 'data', value: { port: 3000 }, description: 'c' });
    await store.put('file', { type: 'file', value: '/tmp/server.js', description: 'f' });
    await store.put('inner', { type: 'data', value: ['@config', '@@x'], description: 'i' });
    const input = {
      command: 'node',
      args: ['@file', '--flag', ['@config']],
      env: { settings: '@config', deep: { path: '@file' } },
      escaped: '@@file',
      bare: '@',
      mention: 'ask @file later',
      email: 'me@file',
      inner: '@inner',
      '@file': 'keys are not references',
      count: 2,
      none: null,
    };
    const snapshot = structuredClone(input);
    expect(await store.resolveReferences(input)).toEqual({
      command: 'node',
      args: ['/tmp/server.js', '--flag', [{ port: 3000 }]],
      env: { settings: { port: 3000 }, deep: { path: '/tmp/server.js' } },
      escaped: '@file',
      bare: '@',
      mention: 'ask @file later',
      email: 'me@file',
      inner: ['@config', '@@x'],
      '@file': 'keys are not references',
      count: 2,
      none: null,
    });
    expect(input).toEqual(snapshot);
    expect(await store.resolveReferences('@file')).toBe('/tmp/server.js');
    expect(await store.resolveReferences(['@@@file'])).toEqual(['@@file']);
    expect(await store.resolveReferences(42)).toBe(42);
  });

  withStore('unknown @name references reject, naming every unknown one', async (store) => {
    await store.put('known', { type: 'data', value: 1, description: 'k' });
    const error = await store
      .resolveReferences({ a: '@missing', b: ['@known', '@also/missing'] })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      name: 'ArtifactNotFoundError',
      kind: 'record',
      names: ['missing', 'also/missing'],
    });
    expect((error as Error).message).toContain('"@missing"');
    expect((error as Error).message).toContain('"@also/missing"');
  });

  withStore(
    'the catalog lists every record in creation order, described without its value',
    async (store) => {
      expect(await store.catalog()).toEqual([]);
      for (let index = 0; index < 50; index += 1) {
        await store.put(`artifact-${index}`, {
          type: 'data',
          value: 'v'.repeat(index),
          description: `Description number ${index}`,
        });
      }
      const catalog = await store.catalog();
      expect(catalog.map((entry) => entry.name)).toEqual(
        Array.from({ length: 50 }, (_, index) => `artifact-${index}`),
      );
      expect(catalog[7]).toMatchObject({
        name: 'artifact-7',
        type: 'data',
        description: 'Description number 7',
        valueKind: 'string',
        valueLength: 7,
      });
      expect(catalog[7]).not.toHaveProperty('value');
    },
  );

  withStore('checkpoints: the latest of a run comes back whole', async (store) => {
    const run = 'run-1';
    expect(await store.latestCheckpoint(run)).toBeUndefined();
    expect(await store.listCheckpoints(run)).toEqual([]);
    const first = await store.saveCheckpoint(checkpoint(run, 1));
    const second = await store.saveCheckpoint(checkpoint(run, 2));
    await store.saveCheckpoint(checkpoint('run-2', 7));
    expect(first.sequence).toBe(1);
    expect(second.sequence).toBe(2);
    const latest = await store.latestCheckpoint(run);
    expect(latest).toMatchObject({
      id: second.id,
      runKey: run,
      sequence: 2,
      callId: 'root',
      iteration: 2,
      transcriptLength: 3,
      variableNames: ['rows', 'summary', 'fn'],
      transcript: checkpoint(run, 2).transcript,
      variables: checkpoint(run, 2).variables,
      budget: checkpoint(run, 2).budget,
      metadata: { depth: 0 },
    });
    expect((await store.listCheckpoints(run)).map((summary) => summary.id)).toEqual([
      second.id,
      first.id,
    ]);
    expect((await store.loadCheckpoint(run, first.id)).iteration).toBe(1);
    await expect(store.loadCheckpoint(run, 'nope')).rejects.toMatchObject({
      name: 'ArtifactNotFoundError',
    });
    await expect(store.loadCheckpoint('run-2', first.id)).rejects.toMatchObject({
      name: 'ArtifactNotFoundError',
    });
  });

  withStore('checkpoints reject variables that are not JSON', async (store) => {
    const input = { ...checkpoint('run', 1), variables: { ok: 1, bad: 10n } };
    const error = await store.saveCheckpoint(input).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'ArtifactValueError' });
    expect((error as Error).message).toContain('"bad"');
    expect(await store.latestCheckpoint('run')).toBeUndefined();
  });

  withStore('close is idempotent and later calls reject', async (store) => {
    const ref = await store.store('known before closing');
    await store.close();
    await store.close();
    await expect(store.store('x')).rejects.toMatchObject({ name: 'ArtifactStoreError' });
    await expect(store.store('known before closing')).rejects.toMatchObject({
      name: 'ArtifactStoreError',
    });
    await expect(store.has(ref.id)).rejects.toMatchObject({ name: 'ArtifactStoreError' });
    await expect(store.load(ref.id)).rejects.toMatchObject({ name: 'ArtifactStoreError' });
    await expect(store.get('x')).rejects.toMatchObject({ name: 'ArtifactStoreError' });
    await expect(store.latestCheckpoint('x')).rejects.toMatchObject({
      name: 'ArtifactStoreError',
    });
  });
}

function checkpoint(runKey: string, iteration: number): CheckpointInput {
  return {
    runKey,
    callId: 'root',
    iteration,
    transcript: [
      { role: 'user', content: 'Which vendors appear most?' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Counting.' },
          { type: 'tool-call', call: { id: 't1', name: 'SUBMIT', input: { answer: 'Acme' } } },
        ],
      },
      {
        role: 'user',
        content: [{ type: 'tool-result', toolCallId: 't1', content: `step ${iteration}` }],
      },
    ],
    variableNames: ['rows', 'summary', 'fn'],
    variables: { rows: [{ vendor: 'Acme', count: iteration }], summary: `after ${iteration}` },
    budget: {
      inputTokens: 100 * iteration,
      outputTokens: 10,
      cacheReadTokens: 50 * iteration,
      cacheWriteTokens: 20,
      modelCalls: iteration,
      costUsd: 0.001 * iteration,
      elapsedMs: 1.5,
    },
    metadata: { depth: 0 },
  };
}
