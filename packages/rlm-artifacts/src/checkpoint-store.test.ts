import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import type { CheckpointInput, SerializedVariableInput } from '@rlm/core';
import { Keyv } from 'keyv';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createArtifactStore } from './create-artifact-store.js';
import { maxDeltaChain } from './checkpoint-store.js';
import { createSqliteArtifactStore } from './create-sqlite-artifact-store.js';
import { ArtifactCorruptError } from './errors/artifact-corrupt-error.js';
import { ArtifactValueError } from './errors/artifact-value-error.js';
import { rewriteSqliteRows } from './testing/rewrite-sqlite-rows.js';

let directory: string;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'rlm-checkpoint-store-'));
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
}, 60_000);

function serialized(value: unknown, sendBytes = true): SerializedVariableInput {
  const bytes = serialize(value);
  const digest = createHash('sha256').update(bytes).digest('hex');
  return sendBytes ? { digest, bytes } : { digest };
}

function checkpoint(
  iteration: number,
  serializedVariables: Record<string, SerializedVariableInput>,
): CheckpointInput {
  return {
    runKey: 'run',
    callId: 'root',
    iteration,
    transcript: [{ role: 'user', content: `step ${iteration}` }],
    variableNames: [...Object.keys(serializedVariables), 'helper'],
    variables: {},
    serializedVariables,
    budget: {
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      modelCalls: iteration,
      elapsedMs: 0,
    },
  };
}

test('sandbox-serialised variables round trip through a SQLite file, every clone type intact', async () => {
  const path = join(directory, 'round-trip.sqlite');
  const cyclic: Record<string, unknown> = { name: 'loop' };
  cyclic.self = cyclic;
  const sparse: unknown[] = [];
  sparse[3] = 'x';
  const values: Record<string, unknown> = {
    counts: new Map([
      ['a', 1],
      ['b', 2],
    ]),
    tags: new Set(['x', 'y']),
    when: new Date(86_400_000),
    pattern: /ab+c/gi,
    bytes: new Uint8Array([1, 2, 3]),
    buffer: new ArrayBuffer(8),
    big: 12345678901234567890n,
    cyclic,
    sparse,
    negativeZero: -0,
    notANumber: Number.NaN,
  };
  {
    await using store = await createSqliteArtifactStore({ path });
    await store.saveCheckpoint(
      checkpoint(
        1,
        Object.fromEntries(
          Object.entries(values).map(([name, value]) => [name, serialized(value)]),
        ),
      ),
    );
  }
  await using reopened = await createSqliteArtifactStore({ path });
  const latest = await reopened.latestCheckpoint('run');
  expect(latest).toBeDefined();
  const restored = Object.fromEntries(
    Object.entries(latest!.serializedVariables).map(([name, bytes]) => [name, deserialize(bytes)]),
  );
  expect(restored.counts).toEqual(values.counts);
  expect(restored.tags).toEqual(values.tags);
  expect((restored.when as Date).getTime()).toBe(86_400_000);
  expect(String(restored.pattern)).toBe('/ab+c/gi');
  expect(restored.bytes).toEqual(new Uint8Array([1, 2, 3]));
  expect((restored.buffer as ArrayBuffer).byteLength).toBe(8);
  expect(restored.big).toBe(12345678901234567890n);
  const loop = restored.cyclic as Record<string, unknown>;
  expect(loop.self).toBe(loop);
  expect(restored.sparse as unknown[]).toHaveLength(4);
  expect(1 in (restored.sparse as unknown[])).toBe(false);
  expect(Object.is(restored.negativeZero, -0)).toBe(true);
  expect(restored.notANumber).toBeNaN();
  expect(latest!.serializedDigests.counts).toBe(serialized(values.counts).digest);
  expect(latest!.variableNames).toContain('helper');
});

test('an unchanged variable references its earlier blob: nothing of it is written again', async () => {
  const content = new Map<string, unknown>();
  await using store = createArtifactStore({
    keyv: new Keyv({ store: new Map(), namespace: 'rlm' }),
    blobKeyv: new Keyv({ store: content, namespace: 'rlm' }),
  });
  const large = 'word '.repeat(200_000).split(' ');
  await store.saveCheckpoint(checkpoint(1, { words: serialized(large) }));
  const chunksAfterFirst = content.size;
  const writes: string[] = [];
  const originalSet = content.set.bind(content);
  content.set = (key: string, value: unknown) => {
    writes.push(key);
    return originalSet(key, value);
  };
  for (let iteration = 2; iteration <= 10; iteration += 1) {
    await store.saveCheckpoint(checkpoint(iteration, { words: serialized(large, false) }));
  }
  // Nothing was written to blobs: each step's transcript (one message in place of the last
  // one's) is in the delta entry itself, and the array is where the first save put it.
  expect(writes).toEqual([]);
  expect(content.size).toBe(chunksAfterFirst);
  const latest = await store.latestCheckpoint('run');
  expect(latest!.iteration).toBe(10);
  expect(deserialize(latest!.serializedVariables.words!)).toEqual(large);
  const wordsBlob = createHash('sha256').update(serialize(large)).digest('hex').slice(0, 12);
  expect(writes.some((key) => key.includes(wordsBlob))).toBe(false);
});

test('an unchanged variable whose bytes were never stored is refused, naming it', async () => {
  await using store = createArtifactStore({ keyv: new Keyv({ store: new Map() }) });
  const error = await store
    .saveCheckpoint(checkpoint(1, { ghost: serialized({ never: 'stored' }, false) }))
    .catch((caught: unknown) => caught);
  expect(ArtifactValueError.isInstance(error)).toBe(true);
  expect((error as Error).message).toContain('"ghost"');
  expect(await store.latestCheckpoint('run')).toBeUndefined();
});

test('loadSerializedBytes: false reads no variable bytes, and says which blob holds each', async () => {
  const content = new Map<string, unknown>();
  await using store = createArtifactStore({
    keyv: new Keyv({ store: new Map(), namespace: 'rlm' }),
    blobKeyv: new Keyv({ store: content, namespace: 'rlm' }),
  });
  const counts = new Map(Array.from({ length: 2_000 }, (_, index) => [`word${index}`, index]));
  const small = new Set(['a']);
  await store.saveCheckpoint(
    checkpoint(1, { counts: serialized(counts), small: serialized(small) }),
  );
  const reads: string[] = [];
  const originalGet = content.get.bind(content);
  content.get = (key: string) => {
    reads.push(key);
    return originalGet(key);
  };
  const light = await store.latestCheckpoint('run', { loadSerializedBytes: false });
  // A small variable lives in the checkpoint itself: it comes at once, with no blob.
  expect(Object.keys(light!.serializedVariables)).toEqual(['small']);
  expect(deserialize(light!.serializedVariables.small!)).toEqual(small);
  expect(Object.keys(light!.serializedBlobs)).toEqual(['counts']);
  expect(light!.serializedDigests.counts).toBe(serialized(counts).digest);
  const blob = light!.serializedBlobs.counts!;
  expect(blob).toBe(serialized(counts).digest.slice(0, 12));
  // Only the transcript message's chunk was read, never the variable's.
  expect(reads.some((key) => key.includes(blob))).toBe(false);
  expect(light!.transcript).toEqual([{ role: 'user', content: 'step 1' }]);
  expect(deserialize(await store.loadBytes(blob))).toEqual(counts);
  const full = await store.latestCheckpoint('run');
  expect(deserialize(full!.serializedVariables.counts!)).toEqual(counts);
  expect(full!.serializedBlobs).toEqual(light!.serializedBlobs);
});

test('small variables are kept in the checkpoint itself: no blob write, unchanged ones too, from another store instance', async () => {
  const path = join(directory, 'inline.sqlite');
  const names = Array.from({ length: 50 }, (_, index) => `v${index}`);
  const values = Object.fromEntries(names.map((name, index) => [name, { id: index, n: 0 }]));
  {
    await using store = await createSqliteArtifactStore({ path });
    await store.saveCheckpoint(
      checkpoint(1, Object.fromEntries(names.map((name) => [name, serialized(values[name])]))),
    );
    // One blob: the transcript message; none for the 50 variables.
    expect((await store.list()).length).toBe(1);
  }
  // Another process marks them unchanged: their bytes come from the newest checkpoint.
  await using reopened = await createSqliteArtifactStore({ path });
  await reopened.saveCheckpoint(
    checkpoint(2, Object.fromEntries(names.map((name) => [name, serialized(values[name], false)]))),
  );
  const latest = await reopened.latestCheckpoint('run', { loadSerializedBytes: false });
  expect(latest!.iteration).toBe(2);
  expect(deserialize(latest!.serializedVariables.v49!)).toEqual({ id: 49, n: 0 });
  expect(Object.keys(latest!.serializedVariables)).toHaveLength(50);
});

test("serialised bytes are stored under the sandbox's digest without hashing them again; a wrong digest is caught when they are loaded", async () => {
  await using store = createArtifactStore({ keyv: new Keyv({ store: new Map() }) });
  const words = Array.from({ length: 2_000 }, (_, index) => `word${index}`);
  const right = serialized(words);
  await store.saveCheckpoint(checkpoint(1, { words: right }));
  expect(deserialize(await store.loadBytes(right.digest.slice(0, 12)))).toEqual(words);
  const other = serialized(words.slice(1));
  await store.saveCheckpoint(
    checkpoint(2, { words: { digest: other.digest, bytes: right.bytes! } }),
  );
  const error = await store.latestCheckpoint('run').catch((caught: unknown) => caught);
  expect(ArtifactCorruptError.isInstance(error)).toBe(true);
});

test('a damaged inline variable is left out of a loaded checkpoint, so it is lost rather than restored wrong', async () => {
  const index = new Map<string, unknown>();
  await using store = createArtifactStore({ keyv: new Keyv({ store: index }) });
  const good = serialized({ keep: true });
  const bad = serialized({ keep: false });
  await store.saveCheckpoint(checkpoint(1, { good, bad }));
  const inline = Buffer.from(bad.bytes!).toString('base64');
  const damaged = `${inline.slice(0, 4)}${inline[4] === 'A' ? 'B' : 'A'}${inline.slice(5)}`;
  let replaced = 0;
  for (const [key, value] of index) {
    if (typeof value === 'string' && value.includes(inline)) {
      index.set(key, value.replace(inline, damaged));
      replaced += 1;
    }
  }
  expect(replaced).toBe(1);
  const latest = await store.latestCheckpoint('run');
  expect(Object.keys(latest!.serializedVariables)).toEqual(['good']);
  expect(Object.keys(latest!.serializedDigests).sort()).toEqual(['bad', 'good']);
});

test('a checkpoint holds what changed since the one before; each one loads whole, also from a new store instance', async () => {
  const index = new Map<string, unknown>();
  const keyv = () => new Keyv({ store: index });
  const steps = 3 * (maxDeltaChain + 1);
  const transcript: CheckpointInput['transcript'][number][] = [];
  const variables: Record<string, SerializedVariableInput> = {};
  /** The size of the entry each save added to the index (what it wrote besides blobs). */
  const entrySizes: number[] = [];
  {
    await using store = createArtifactStore({ keyv: keyv() });
    for (let step = 1; step <= steps; step++) {
      transcript.push({ role: 'assistant', content: `code ${step}` });
      transcript.push({ role: 'user', content: `output ${step}` });
      variables[`a${step}`] = serialized([step, step + 1]);
      variables.counter = serialized({ step });
      if (step === 5) variables.temporary = serialized('kept for a while');
      if (step === 9) delete variables.temporary;
      const before = new Set(index.keys());
      await store.saveCheckpoint({ ...checkpoint(step, variables), transcript: [...transcript] });
      const added = [...index.entries()].filter(
        ([key, value]) =>
          !before.has(key) && typeof value === 'string' && value.includes('rlm.checkpoint"'),
      );
      expect(added).toHaveLength(1);
      entrySizes.push(String(added[0]![1]).length);
      // Later saves mark unchanged variables so: no bytes sent.
      for (const name of Object.keys(variables)) {
        variables[name] = { digest: variables[name]!.digest };
      }
    }
  }
  // Deltas stay small however long the run is; a whole entry is written every so often.
  const deltas = entrySizes.filter((_, index) => index % (maxDeltaChain + 1) !== 0);
  expect(Math.max(...deltas)).toBeLessThan(entrySizes[steps - maxDeltaChain - 1]! / 2);
  await using reopened = createArtifactStore({ keyv: keyv() });
  const summaries = await reopened.listCheckpoints('run');
  expect(summaries).toHaveLength(steps);
  for (const summary of summaries) {
    const step = summary.iteration;
    expect(summary.transcriptLength).toBe(2 * step);
    const loaded = await reopened.loadCheckpoint('run', summary.id);
    expect(loaded.transcript).toHaveLength(2 * step);
    expect(loaded.transcript.at(-1)).toEqual({ role: 'user', content: `output ${step}` });
    expect(deserialize(loaded.serializedVariables.counter!)).toEqual({ step });
    expect(deserialize(loaded.serializedVariables[`a${step}`]!)).toEqual([step, step + 1]);
    const names = Object.keys(loaded.serializedDigests);
    expect(names).toHaveLength(step + 1 + (step >= 5 && step < 9 ? 1 : 0));
  }
  // A new instance writes a whole entry first, then continues with deltas of its own.
  await reopened.saveCheckpoint({
    ...checkpoint(steps + 1, variables),
    transcript: [...transcript, { role: 'assistant', content: 'last' }],
  });
  const latest = await reopened.latestCheckpoint('run');
  expect(latest!.transcript).toHaveLength(2 * steps + 1);
  expect(Object.keys(latest!.serializedVariables)).toHaveLength(steps + 1);
});

test('a save that replaced the last saved message is a delta too; each checkpoint resumes from a reopened SQLite file', async () => {
  const path = join(directory, 'replaced-last.sqlite');
  const saves = 2 * (maxDeltaChain + 1);
  // As the loop keeps a transcript: a step's feedback gets the next step's status merged in,
  // a new message object in place of the last saved one.
  const transcript: CheckpointInput['transcript'][number][] = [{ role: 'user', content: 'query' }];
  const saved: CheckpointInput['transcript'][number][][] = [];
  {
    await using store = await createSqliteArtifactStore({ path });
    for (let step = 1; step <= saves; step++) {
      const last = transcript.at(-1)!;
      transcript[transcript.length - 1] = {
        role: 'user',
        content: [
          { type: 'text', text: String(last.content) },
          { type: 'text', text: `status ${step}` },
        ],
      };
      transcript.push({ role: 'assistant', content: `code ${step}` });
      transcript.push({ role: 'user', content: `output ${step}` });
      saved.push([...transcript]);
      await store.saveCheckpoint({
        ...checkpoint(step, { n: serialized(step) }),
        transcript: [...transcript],
      });
    }
    // Only whole entries write a page of messages: one every `maxDeltaChain + 1` saves.
    expect(await store.list()).toHaveLength(saves / (maxDeltaChain + 1));
  }
  await using reopened = await createSqliteArtifactStore({ path });
  for (const summary of await reopened.listCheckpoints('run')) {
    const loaded = await reopened.loadCheckpoint('run', summary.id);
    expect(summary.transcriptLength).toBe(saved[summary.iteration - 1]!.length);
    expect(loaded.transcript).toEqual(saved[summary.iteration - 1]);
    expect(deserialize(loaded.serializedVariables.n!)).toBe(summary.iteration);
  }
  // Two saved messages changed: not a delta, a whole entry with a new page.
  const before = (await reopened.list()).length;
  const changed = saved
    .at(-1)!
    .map((message, index) =>
      index >= saved.at(-1)!.length - 2 ? { ...message, content: `changed ${index}` } : message,
    );
  await reopened.saveCheckpoint({ ...checkpoint(saves + 1, {}), transcript: changed });
  await reopened.saveCheckpoint({
    ...checkpoint(saves + 2, {}),
    transcript: [...changed.slice(0, -2), { role: 'assistant', content: 'other' }],
  });
  expect((await reopened.list()).length).toBe(before + 2);
  expect((await reopened.latestCheckpoint('run'))!.transcript).toEqual([
    ...changed.slice(0, -2),
    { role: 'assistant', content: 'other' },
  ]);
});

test('a delta whose base is missing is reported as damage, naming the key', async () => {
  const index = new Map<string, unknown>();
  await using store = createArtifactStore({ keyv: new Keyv({ store: index }) });
  await store.saveCheckpoint(checkpoint(1, { a: serialized([1]) }));
  const whole = [...index.keys()].filter((key) =>
    String(index.get(key)).includes('rlm.checkpoint"'),
  );
  // The same transcript and more: a delta of the first.
  await store.saveCheckpoint({
    ...checkpoint(2, { a: serialized([1], false) }),
    transcript: [...checkpoint(1, {}).transcript, { role: 'assistant', content: 'next' }],
  });
  expect(whole).toHaveLength(1);
  for (const key of whole) index.delete(key);
  await expect(store.latestCheckpoint('run')).rejects.toSatisfy(
    (error) => ArtifactCorruptError.isInstance(error) && /missing/.test((error as Error).message),
  );
});

/** A Keyv memory store that records the key of every write, in order. */
class RecordingMap extends Map<string, unknown> {
  readonly writes: string[] = [];

  override set(key: string, value: unknown): this {
    this.writes?.push(key);
    return super.set(key, value);
  }
}

test('a steady-state save writes its entry, then the head, and nothing else: new messages and small variables are in the entry', async () => {
  const index = new RecordingMap();
  await using store = createArtifactStore({ keyv: new Keyv({ store: index }) });
  const names = Array.from({ length: 50 }, (_, position) => `v${position}`);
  const transcript: CheckpointInput['transcript'][number][] = [{ role: 'user', content: 'query' }];
  const writesPerSave: string[][] = [];
  const saves = 2 * (maxDeltaChain + 1);
  for (let step = 1; step <= saves; step++) {
    transcript.push({ role: 'assistant', content: `:code ${step}` });
    transcript.push({ role: 'user', content: `output ${step}` });
    const variables = Object.fromEntries(
      names.map((name, position) => [name, serialized({ id: position, n: step })]),
    );
    index.writes.length = 0;
    await store.saveCheckpoint({ ...checkpoint(step, variables), transcript: [...transcript] });
    writesPerSave.push(index.writes.map((key) => key.split(':')[1]!));
  }
  for (const [position, writes] of writesPerSave.entries()) {
    if (position % (maxDeltaChain + 1) === 0) {
      // A whole entry: first the page of messages the deltas before kept (its upload marker,
      // its chunk, its meta), then the entry, then the head.
      expect(writes).toEqual(['upload', 'chunk', 'blob', 'checkpoint', 'checkpoint-head']);
    } else {
      expect(writes).toEqual(['checkpoint', 'checkpoint-head']);
    }
  }
  // One page per whole entry: the transcript is two blobs, not one per message.
  expect(await store.list()).toHaveLength(2);
  const latest = await store.latestCheckpoint('run');
  expect(latest!.transcript).toEqual(transcript);
  expect(deserialize(latest!.serializedVariables.v49!)).toEqual({ id: 49, n: saves });
  for (const summary of await store.listCheckpoints('run')) {
    const loaded = await store.loadCheckpoint('run', summary.id);
    expect(loaded.transcript).toEqual(transcript.slice(0, 1 + 2 * summary.iteration));
  }
});

test('checkpoints written in the version 1 format (a blob per message) still load, and a new save continues them', async () => {
  // Written by the version 1 code: three checkpoints (a whole entry and two deltas) of run
  // `v1-run`, each with two new messages, a Map inline and a word list in a blob.
  const fixture = JSON.parse(
    await readFile(new URL('./test-support/checkpoint-v1.fixture.json', import.meta.url), 'utf8'),
  ) as Record<string, string>;
  const index = new Map<string, unknown>(Object.entries(fixture));
  await using store = createArtifactStore({ keyv: new Keyv({ store: index }) });
  const words = Array.from({ length: 600 }, (_, position) => `word${position}`);
  const counts = (step: number) =>
    new Map(Array.from({ length: step }, (_, position) => [`w${position + 1}`, position + 1]));
  const summaries = await store.listCheckpoints('v1-run');
  expect(summaries.map((summary) => summary.transcriptLength)).toEqual([7, 5, 3]);
  for (const summary of summaries) {
    const loaded = await store.loadCheckpoint('v1-run', summary.id);
    expect(loaded.transcript).toHaveLength(summary.transcriptLength);
    expect(loaded.transcript.at(-1)).toEqual({
      role: 'user',
      content: `Output of step ${summary.iteration}`,
    });
    expect(deserialize(loaded.serializedVariables.counts!)).toEqual(counts(summary.iteration));
    expect(deserialize(loaded.serializedVariables.words!)).toEqual(words);
  }
  const latest = await store.latestCheckpoint('v1-run');
  expect(latest!.metadata).toEqual({ depth: 0, skipped: { helper: 'a function' } });
  const transcript = [
    ...latest!.transcript,
    { role: 'assistant' as const, content: 'more' },
    { role: 'user' as const, content: 'Output of step 4' },
  ];
  await store.saveCheckpoint({
    ...checkpoint(4, {
      counts: serialized(counts(4)),
      words: { digest: latest!.serializedDigests.words! },
    }),
    runKey: 'v1-run',
    transcript,
  });
  const next = await store.latestCheckpoint('v1-run');
  expect(next!.transcript).toEqual(transcript);
  expect(deserialize(next!.serializedVariables.words!)).toEqual(words);
  expect((await store.listCheckpoints('v1-run')).map((summary) => summary.iteration)).toEqual([
    4, 3, 2, 1,
  ]);
  // The version 1 entries are left as they were.
  const versions = Object.keys(fixture)
    .filter((key) => key.startsWith('keyv:checkpoint:'))
    .map((key) => (JSON.parse(String(index.get(key))) as { value: { version: number } }).value);
  expect(versions.map((entry) => entry.version)).toEqual([1, 1, 1]);
});

test('a store remembers the last checkpoint of its 64 latest runs: an older run continues with a whole entry, still whole on load', async () => {
  const index = new RecordingMap();
  await using store = createArtifactStore({ keyv: new Keyv({ store: index }) });
  const first: CheckpointInput['transcript'][number] = { role: 'user', content: 'query' };
  const save = async (runKey: string, transcript: CheckpointInput['transcript']) => {
    index.writes.length = 0;
    await store.saveCheckpoint({ ...checkpoint(transcript.length, {}), runKey, transcript });
    return index.writes.map((key) => key.split(':')[1]!);
  };
  for (let run = 0; run <= 64; run++) await save(`run-${run}`, [first]);
  const next = [first, { role: 'assistant' as const, content: 'more' }];
  // run-64 is remembered: a delta. run-0 was forgotten: a whole entry, with a page.
  expect(await save('run-64', next)).toEqual(['checkpoint', 'checkpoint-head']);
  expect(await save('run-0', next)).toEqual([
    'upload',
    'chunk',
    'blob',
    'checkpoint',
    'checkpoint-head',
  ]);
  expect((await store.latestCheckpoint('run-0'))!.transcript).toEqual(next);
  expect((await store.latestCheckpoint('run-64'))!.transcript).toEqual(next);
});

test('a transcript part that points past its page, or a kept message that is not one, is reported as damage, naming the key', async () => {
  const index = new Map<string, unknown>();
  await using store = createArtifactStore({ keyv: new Keyv({ store: index }) });
  const first: CheckpointInput['transcript'][number] = { role: 'user', content: 'query' };
  await store.saveCheckpoint({ ...checkpoint(1, {}), transcript: [first] });
  await store.saveCheckpoint({
    ...checkpoint(2, {}),
    transcript: [first, { role: 'assistant', content: 'kept in the entry' }],
  });
  const damage = async (from: string, to: string) => {
    const [key, value] = [...index].find(([, stored]) => String(stored).includes(from))!;
    index.set(key, String(value).replace(from, to));
    const error = await store.latestCheckpoint('run').catch((caught: unknown) => caught);
    index.set(key, value);
    return error as Error;
  };
  const past = await damage('"start":0,"count":1', '"start":1,"count":1');
  expect(ArtifactCorruptError.isInstance(past)).toBe(true);
  expect(past.message).toMatch(
    /keyv:checkpoint:.* takes messages 1 to 1 of blob [0-9a-f]{12}, which holds 1/,
  );
  const kept = await damage('"role":"assistant"', '"role":"system"');
  expect(ArtifactCorruptError.isInstance(kept)).toBe(true);
  expect(kept.message).toMatch(/refers to a message of its own, which is not a transcript message/);
  expect((await store.latestCheckpoint('run'))!.transcript).toHaveLength(2);
});

describe('a checkpoint row that lies about what is stored', () => {
  const first: CheckpointInput['transcript'] = [
    { role: 'user', content: 'query' },
    { role: 'assistant', content: 'code 1' },
    { role: 'user', content: 'output 1' },
  ];

  /**
   * A SQLite file holding a whole checkpoint (its 3 messages in one page) and, unless `whole`, a
   * delta after it, closed, then `from` replaced by `to` in the stored checkpoint rows (through
   * the SQLite driver); resolves what loading the newest checkpoint then gives, and the heap it
   * took.
   */
  async function tampered(name: string, from: string, to: string, whole = false) {
    const path = join(directory, `${name}.sqlite`);
    {
      await using store = await createSqliteArtifactStore({ path });
      await store.saveCheckpoint({ ...checkpoint(1, {}), transcript: first });
      if (!whole) {
        await store.saveCheckpoint({
          ...checkpoint(2, {}),
          transcript: [...first, { role: 'assistant', content: 'code 2' }],
        });
      }
    }
    expect(await rewriteSqliteRows(path, 'rlm:checkpoint:%', from, to)).toBe(1);
    await using reopened = await createSqliteArtifactStore({ path });
    const heapBefore = process.memoryUsage().heapUsed;
    const error = await reopened.latestCheckpoint('run').catch((caught: unknown) => caught);
    const heapGrowth = process.memoryUsage().heapUsed - heapBefore;
    return { error: error as Error, heapGrowth };
  }

  function expectDamage(error: Error, problem: RegExp): void {
    expect(ArtifactCorruptError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/^@rlm\/artifacts: a checkpoint of run "run" is damaged \(/);
    expect(error.message).toMatch(problem);
    expect(error.message).toMatch(/start the run again without resuming it$/);
    expect(error.message).not.toContain('\n');
  }

  test('a page said to hold a billion messages: one error naming the run, nothing allocated for them', async () => {
    const { error, heapGrowth } = await tampered(
      'billion',
      '"count":3}',
      '"count":1000000000}',
      true,
    );
    expectDamage(error, /takes messages 0 to 999999999 of blob [0-9a-f]{12}, which holds 3/);
    expect(heapGrowth).toBeLessThan(64 * 1024 * 1024);
  });

  test('a delta taking more messages of its base than the base has', async () => {
    const { error } = await tampered(
      'base-length',
      '"transcriptBaseLength":3',
      '"transcriptBaseLength":1000000000',
    );
    expectDamage(error, /takes 1000000000 messages of checkpoint [\w-]+, which has 3/);
  });

  test('a range starting past its page, a range that does not end, a chain that skips', async () => {
    expectDamage(
      (await tampered('past', '"start":0,"count":3', '"start":2,"count":3', true)).error,
      /takes messages 2 to 4 of blob [0-9a-f]{12}, which holds 3/,
    );
    expectDamage(
      (await tampered('unsafe', '"start":0,"count":3', '"start":9007199254740991,"count":3')).error,
      /should end at a safe integer/,
    );
    expectDamage(
      (await tampered('chain', '"chain":1', '"chain":7')).error,
      /is not the delta before it/,
    );
  });

  test('a page range taken twice (no writer does) is damage, not twice the messages', async () => {
    const index = new Map<string, unknown>();
    await using store = createArtifactStore({ keyv: new Keyv({ store: index }) });
    await store.saveCheckpoint({ ...checkpoint(1, {}), transcript: first });
    const [key, value] = [...index].find(([, stored]) => String(stored).includes('"page"'))!;
    const part = /\{"page":"[0-9a-f]{12}","start":0,"count":3\}/.exec(String(value))![0];
    index.set(key, String(value).replace(part, `${part},${part}`));
    const error = await store.latestCheckpoint('run').catch((caught: unknown) => caught);
    expectDamage(error as Error, /takes message 0 of blob [0-9a-f]{12} more than once/);
  });
});
