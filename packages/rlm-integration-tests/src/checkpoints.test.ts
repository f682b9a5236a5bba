import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deserialize } from 'node:v8';
import {
  ArtifactCorruptError,
  createMemoryArtifactStore,
  createSqliteArtifactStore,
} from '@rlm/artifacts';
import { rewriteSqliteRows } from '@rlm/artifacts/testing';
import {
  type ArtifactStore,
  CheckpointCorruptError,
  type CheckpointInput,
  createRLM,
  type LanguageModel,
  type RlmEvent,
  type SandboxFactory,
} from '@rlm/core';
import { createScriptedModel } from '@rlm/core/testing';
import { expect, test } from 'vitest';
import { sandboxFactory } from './sandbox-under-test.js';

/**
 * Checkpoints off the critical path, through the real SES sandbox and a real artifact store:
 * the save after step N overlaps the model call of step N+1, the snapshot still shows step N,
 * and a failed save only warns.
 */

const repl = (code: string) => `\`\`\`repl\n${code}\n\`\`\``;

/** `store` with its `saveCheckpoint` replaced, in every scoped view too. */
function withSave(
  store: ArtifactStore,
  save: (input: CheckpointInput) => ReturnType<ArtifactStore['saveCheckpoint']>,
): ArtifactStore {
  return new Proxy(store, {
    get(target, property) {
      if (property === 'saveCheckpoint') return save;
      // The run works on a scoped view; checkpoints are shared by all scopes.
      if (property === 'scoped') return (scope: string) => withSave(target.scoped(scope), save);
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

async function collect(stream: AsyncIterable<RlmEvent>): Promise<RlmEvent[]> {
  const events: RlmEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

test('the save after step 1 overlaps the model call of step 2; the snapshot still shows step 1', async () => {
  const store = createMemoryArtifactStore();
  let releaseSave!: () => void;
  const saveGate = new Promise<void>((resolve) => {
    releaseSave = resolve;
  });
  let saved = 0;
  let runKey = '';
  let bothSaved!: () => void;
  const savedTwice = new Promise<void>((resolve) => {
    bothSaved = resolve;
  });
  // Every save waits until the model is asked for step 3: were the loop waiting for saves,
  // the model would never be asked for step 2.
  const artifacts = withSave(store, async (input) => {
    runKey = input.runKey;
    await saveGate;
    const summary = await store.saveCheckpoint(input);
    saved += 1;
    if (saved === 2) bothSaved();
    return summary;
  });
  let savedBeforeStep2: number | undefined;
  const scripted = createScriptedModel([
    repl('var total = new Map([["step", 1]]);'),
    () => {
      savedBeforeStep2 = saved;
      return repl('total.set("step", 2);');
    },
    () => {
      releaseSave();
      return repl('SUBMIT(total.get("step"))');
    },
  ]);
  // The answer is held until both saves are done: once the run has its answer, a checkpoint
  // not yet saved is dropped.
  const llm: LanguageModel = {
    ...scripted,
    generate: async (request, options) => {
      const result = await scripted.generate(request, options);
      if (scripted.requests.length === 3) await savedTwice;
      return result;
    },
  };
  await using rlm = createRLM({ model: llm, sandbox: sandboxFactory, artifacts });
  const events = await collect(rlm.queryStream('q', 'ctx'));
  expect(events.find((event) => event.type === 'final')).toMatchObject({ answer: 2 });
  // The model was asked for step 2 before the step-1 checkpoint was written.
  expect(savedBeforeStep2).toBe(0);
  const checkpoints = events.filter((event) => event.type === 'checkpoint');
  expect(checkpoints.map((event) => event.iteration)).toEqual([1, 2]);
  const [second, first] = await store.listCheckpoints(runKey);
  expect(first?.iteration).toBe(1);
  const firstCheckpoint = await store.loadCheckpoint(first!.runKey, first!.id);
  // Step 2 ran only after the step-1 snapshot was taken: it shows step 1.
  expect(deserialize(firstCheckpoint.serializedVariables.total!)).toEqual(new Map([['step', 1]]));
  const secondCheckpoint = await store.loadCheckpoint(second!.runKey, second!.id);
  expect(deserialize(secondCheckpoint.serializedVariables.total!)).toEqual(new Map([['step', 2]]));
});

test('a failed checkpoint only warns: the run answers, the next checkpoint is written whole', async () => {
  const store = createMemoryArtifactStore();
  let saves = 0;
  let runKey = '';
  const artifacts = withSave(store, async (input) => {
    runKey = input.runKey;
    saves += 1;
    if (saves === 1) throw new Error('disk full');
    return store.saveCheckpoint(input);
  });
  const llm = createScriptedModel([
    repl('var words = "a b c".split(" ");'),
    repl('var more = 1;'),
    repl('SUBMIT(words.length + more)'),
  ]);
  await using rlm = createRLM({ model: llm, sandbox: sandboxFactory, artifacts });
  const events = await collect(rlm.queryStream('q', 'ctx'));
  expect(events.find((event) => event.type === 'final')).toMatchObject({ answer: 4 });
  expect(
    events.filter((event) => event.type === 'warning' && event.code === 'checkpoint-failed'),
  ).toEqual([expect.objectContaining({ message: 'Could not save a checkpoint: disk full' })]);
  const latest = await store.latestCheckpoint(runKey);
  expect(latest?.iteration).toBe(2);
  // After the failure nothing was assumed written: `words` is in the second checkpoint.
  expect(deserialize(latest!.serializedVariables.words!)).toEqual(['a', 'b', 'c']);
});

test('a sandbox without snapshotVariables is checkpointed as JSON data; the rest is named lost, with the reason', async () => {
  const artifacts = createMemoryArtifactStore();
  // The real SES sandbox, seen through the narrow interface only (no snapshot methods).
  const jsonOnly: SandboxFactory = async (options) => {
    const sandbox = await sandboxFactory(options);
    return {
      execute: (code, executeOptions) => sandbox.execute(code, executeOptions),
      listVariables: () => sandbox.listVariables(),
      getVariable: (name) => sandbox.getVariable(name),
      setVariables: (values, setOptions) => sandbox.setVariables(values, setOptions),
      dispose: () => sandbox.dispose(),
      [Symbol.asyncDispose]: () => sandbox.dispose(),
    };
  };
  const crashing = createScriptedModel([
    repl('const rows = [{ id: 1 }];\nconst seen = new Set([1]);'),
    { error: new Error('process crashed') },
  ]);
  await using first = createRLM({ model: crashing, sandbox: jsonOnly, artifacts });
  await expect(first.query('json only', 'ctx')).rejects.toThrow('process crashed');

  const resumed = createScriptedModel([
    (request) => {
      expect(JSON.stringify(request.messages)).toContain(
        'Variables lost (they could not be saved): seen (not JSON data)',
      );
      return repl('SUBMIT(rows[0].id)');
    },
  ]);
  await using second = createRLM({ model: resumed, sandbox: jsonOnly, artifacts });
  const result = await second.query('json only', 'ctx', { resume: true });
  expect(result).toMatchObject({ answer: 1, resumedFrom: 1 });
});

test('the answer does not wait for a checkpoint nobody needs; dispose waits for the write in flight', async () => {
  const store = createMemoryArtifactStore();
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const saving: number[] = [];
  const saved: number[] = [];
  let runKey = '';
  const artifacts = withSave(store, async (input) => {
    runKey = input.runKey;
    saving.push(input.iteration);
    await gate;
    const summary = await store.saveCheckpoint(input);
    saved.push(input.iteration);
    return summary;
  });
  const llm = createScriptedModel([
    repl('var total = new Map([["step", 1]]);'),
    repl('total.set("step", 2);'),
    repl('SUBMIT(total.get("step"))'),
  ]);
  const rlm = createRLM({ model: llm, sandbox: sandboxFactory, artifacts });
  // The save of step 1 is held, step 2's queued behind it: the answer comes all the same.
  const result = await rlm.query('superseded', 'ctx');
  expect(result.answer).toBe(2);
  expect(saving).toEqual([1]);
  expect(saved).toEqual([]);
  let disposed = false;
  const disposing = rlm.dispose().then(() => {
    disposed = true;
  });
  await new Promise((resolve) => setTimeout(resolve, 50));
  // The write in flight holds dispose (the store must not be closed under it).
  expect(disposed).toBe(false);
  release();
  await disposing;
  // It finished whole; the one that had not begun was dropped.
  expect(saved).toEqual([1]);
  expect(saving).toEqual([1]);
  expect((await store.latestCheckpoint(runKey))?.iteration).toBe(1);

  // --resume of the finished run continues from the checkpoint that was written.
  const again = createScriptedModel([
    (request) => {
      expect(JSON.stringify(request.messages)).toContain('resumed after iteration 1');
      return repl('SUBMIT(total.get("step") * 10)');
    },
  ]);
  await using resumed = createRLM({ model: again, sandbox: sandboxFactory, artifacts: store });
  expect(await resumed.query('superseded', 'ctx', { resume: true })).toMatchObject({
    answer: 10,
    resumedFrom: 1,
  });
  await store.close();
});

test('steps faster than saves: a checkpoint waiting for its save is replaced by the newer one, which carries its bytes', async () => {
  const store = createMemoryArtifactStore();
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const saved: number[] = [];
  let savedTwice!: () => void;
  const twoSaves = new Promise<void>((resolve) => {
    savedTwice = resolve;
  });
  let runKey = '';
  const artifacts = withSave(store, async (input) => {
    runKey = input.runKey;
    await gate;
    const summary = await store.saveCheckpoint(input);
    saved.push(input.iteration);
    if (saved.length === 2) savedTwice();
    return summary;
  });
  const scripted = createScriptedModel([
    repl('var m = new Map([[1, 1]]);'),
    // `big` is new here; checkpoint 2 waits behind the held save of checkpoint 1.
    repl('var big = [1, 2, 3];\nm.set(2, 2);'),
    // Checkpoint 3 replaces checkpoint 2, and marks `big` unchanged.
    repl('m.set(3, 3);'),
    () => {
      release();
      return repl('SUBMIT(m.size)');
    },
  ]);
  // The answer is held until two saves are done, so that checkpoint 3 is written.
  const llm: LanguageModel = {
    ...scripted,
    generate: async (request, options) => {
      const result = await scripted.generate(request, options);
      if (scripted.requests.length === 4) await twoSaves;
      return result;
    },
  };
  await using rlm = createRLM({ model: llm, sandbox: sandboxFactory, artifacts });
  expect((await rlm.query('coalesced', 'ctx')).answer).toBe(3);
  expect(saved).toEqual([1, 3]);
  const latest = await store.latestCheckpoint(runKey);
  expect(latest?.iteration).toBe(3);
  // `big`'s bytes were only ever in checkpoint 2: checkpoint 3 wrote them.
  expect(deserialize(latest!.serializedVariables.big!)).toEqual([1, 2, 3]);
  expect(deserialize(latest!.serializedVariables.m!)).toEqual(
    new Map([
      [1, 1],
      [2, 2],
      [3, 3],
    ]),
  );
});

test('the next step preempts a large snapshot, silently; a later checkpoint takes the value whole', async () => {
  const store = createMemoryArtifactStore();
  let runKey = '';
  const saves: number[] = [];
  let secondSaved!: () => void;
  const secondSave = new Promise<void>((resolve) => {
    secondSaved = resolve;
  });
  const artifacts = withSave(store, async (input) => {
    runKey = input.runKey;
    const summary = await store.saveCheckpoint(input);
    saves.push(input.iteration);
    if (input.iteration === 2) secondSaved();
    return summary;
  });
  const scripted = createScriptedModel([
    // Millions of strings: hundreds of milliseconds to serialise; step 2 comes at once.
    repl('var words = []; for (let i = 0; i < 6000000; i++) words.push("w" + (i % 7919));'),
    repl('var n = words.length;'),
    repl('SUBMIT(n)'),
  ]);
  // The answer waits for the checkpoint after step 2 (taken while nothing preempts it).
  const llm: LanguageModel = {
    ...scripted,
    generate: async (request, options) => {
      if (scripted.requests.length === 2) await secondSave;
      return scripted.generate(request, options);
    },
  };
  // Step 1 may take over the default 30 s lag on a loaded machine, and step 2 would then wait
  // for the snapshot: the lag bound is not what this case is about.
  await using rlm = createRLM({
    model: llm,
    sandbox: sandboxFactory,
    artifacts,
    checkpointMaxLagMs: 3_600_000,
  });
  const events = await collect(rlm.queryStream('q', 'ctx'));
  expect(events.find((event) => event.type === 'final')).toMatchObject({ answer: 6_000_000 });
  // Preempted, not failed: no warning.
  expect(events.filter((event) => event.type === 'warning')).toEqual([]);
  // Step 2 did not wait for the snapshot of step 1: it was dropped.
  expect(saves).toEqual([2]);
  expect((await store.latestCheckpoint(runKey))?.iteration).toBe(2);
  // Made in pieces, partly before the preemption: it comes back whole on --resume.
  const again = createScriptedModel([repl('SUBMIT(`${words.length}:${words[7920]}`)')]);
  await using resumed = createRLM({ model: again, sandbox: sandboxFactory, artifacts: store });
  expect(await resumed.query('q', 'ctx', { resume: true })).toMatchObject({
    answer: '6000000:w1',
    resumedFrom: 2,
  });
});

test('artifacts.checkpoints.maxLagMs: 0 — every step waits for its snapshot: the heavy step is checkpointed too', async () => {
  const store = createMemoryArtifactStore();
  let runKey = '';
  const saves: number[] = [];
  const artifacts = withSave(store, async (input) => {
    runKey = input.runKey;
    const summary = await store.saveCheckpoint(input);
    saves.push(input.iteration);
    return summary;
  });
  const llm = createScriptedModel([
    repl('var words = []; for (let i = 0; i < 2000000; i++) words.push("w" + (i % 7919));'),
    repl('var n = words.length;'),
    repl('SUBMIT(n)'),
  ]);
  await using rlm = createRLM({
    model: llm,
    sandbox: sandboxFactory,
    artifacts: { store: artifacts, checkpoints: { maxLagMs: 0 } },
  });
  expect(await rlm.query('q', 'ctx')).toMatchObject({ answer: 2_000_000 });
  await rlm.dispose();
  // Step 2 waited for the snapshot of step 1, which was saved (the answer may supersede 2's).
  expect(saves[0]).toBe(1);
  expect((await store.listCheckpoints(runKey)).map((summary) => summary.iteration)).toContain(1);
  expect(() =>
    createRLM({
      model: llm,
      sandbox: sandboxFactory,
      artifacts: { store, checkpoints: { maxLagMs: -1 } },
    }),
  ).toThrow(/artifacts\.checkpoints\.maxLagMs must be a whole number of 0 or more, got -1/);
});

test('a SQLite checkpoint row that lies fails a resume with one error naming the run, before any model call; a fresh run still works', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'rlm-tampered-'));
  try {
    const path = join(directory, 'rlm.sqlite');
    {
      await using artifacts = await createSqliteArtifactStore({ path });
      const crashing = createScriptedModel([
        repl('var kept = [1, 2, 3];'),
        { error: new Error('process crashed') },
      ]);
      await using rlm = createRLM({ model: crashing, sandbox: sandboxFactory, artifacts });
      await expect(rlm.query('Tamper', 'ctx')).rejects.toThrow('process crashed');
    }
    const resume = async (from: string, to: string) => {
      expect(await rewriteSqliteRows(path, 'rlm:checkpoint:%', from, to)).toBe(1);
      await using artifacts = await createSqliteArtifactStore({ path });
      const llm = createScriptedModel(['FINAL(resumed)']);
      await using rlm = createRLM({ model: llm, sandbox: sandboxFactory, artifacts });
      const error = await rlm
        .query('Tamper', 'ctx', { resume: true })
        .catch((caught: unknown) => caught as Error);
      expect(llm.requests).toHaveLength(0);
      expect(await rewriteSqliteRows(path, 'rlm:checkpoint:%', to, from)).toBe(1);
      return error as Error;
    };
    const billion = await resume('"start":0,"count":', '"start":0,"count":99999999');
    expect(ArtifactCorruptError.isInstance(billion)).toBe(true);
    expect(billion.message).toMatch(
      /^@rlm\/artifacts: a checkpoint of run "[0-9a-f]+" is damaged \(.* takes messages 0 to 9{8}\d of blob [0-9a-f]{12}, which holds \d\)/,
    );
    const iteration = await resume('"iteration":1,', '"iteration":1000000000,');
    expect(CheckpointCorruptError.isInstance(iteration)).toBe(true);
    expect(iteration.message).toMatch(/its iteration 1000000000 is not a count of the steps/);
    const names = await resume('"variableNames":["kept"]', '"variableNames":[]');
    expect(CheckpointCorruptError.isInstance(names)).toBe(true);
    expect(names.message).toMatch(/hold "kept", which it does not name/);

    await using artifacts = await createSqliteArtifactStore({ path });
    await using rlm = createRLM({
      model: createScriptedModel(['FINAL(started over)']),
      sandbox: sandboxFactory,
      artifacts,
    });
    expect((await rlm.query('Tamper', 'ctx')).answer).toBe('started over');
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
});

test('a SQLite save held open holds no model request; a crash then waits for it, and a resume continues from the newest checkpoint saved', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'rlm-held-save-'));
  try {
    await using store = await createSqliteArtifactStore({ path: join(directory, 'rlm.sqlite') });
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let saved = 0;
    // The first save waits until the model is asked for step 3.
    const artifacts = withSave(store, async (input) => {
      if (input.iteration === 1) await held;
      const summary = await store.saveCheckpoint(input);
      saved += 1;
      return summary;
    });
    let savedWhenAskedForStep3: number | undefined;
    const crashing = createScriptedModel([
      repl('var total = 1;'),
      repl('total += 1;'),
      () => {
        savedWhenAskedForStep3 = saved;
        release();
        return repl('total += 1;');
      },
      { error: new Error('process crashed') },
    ]);
    {
      await using rlm = createRLM({ model: crashing, sandbox: sandboxFactory, artifacts });
      await expect(rlm.query('Held save', 'ctx')).rejects.toThrow('process crashed');
    }
    // Steps 2 and 3 were asked for while the step-1 checkpoint was still being written.
    expect(savedWhenAskedForStep3).toBe(0);
    const resumed = createScriptedModel([
      (request) => {
        expect(JSON.stringify(request.messages)).toContain('resumed after iteration 3');
        return repl('SUBMIT(total);');
      },
    ]);
    await using rlm = createRLM({ model: resumed, sandbox: sandboxFactory, artifacts: store });
    const events = await collect(rlm.queryStream('Held save', 'ctx', { resume: true }));
    expect(events.find((event) => event.type === 'resumed')).toMatchObject({
      iteration: 3,
      restored: ['total'],
    });
    expect(events.find((event) => event.type === 'final')).toMatchObject({ answer: 3 });
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
});
