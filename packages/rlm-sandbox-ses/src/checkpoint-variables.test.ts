import { type Sandbox, SnapshotPreemptedError, type VariableSnapshotEntry } from '@rlm/core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CheckpointVariables } from './checkpoint-variables.js';
import { ReachTracker } from '@rlm/core/sandbox-support';
import { createSesSandbox } from './create-ses-sandbox.js';
import { deserializeCheckpointBytes, digestOf, pieceElements } from './serialize-in-pieces.js';
import type { WorkerSnapshotEntry } from './worker-protocol.js';

// Tests run the built worker: `pnpm build` (turbo runs it before `test`).
const workerUrl = new URL('../dist/worker.js', import.meta.url);
const createSandbox = createSesSandbox({ workerUrl });
const mebibyte = 1024 * 1024;

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await createSandbox({ hostFunctions: {} });
});
afterAll(() => sandbox.dispose());

function byName(entries: readonly VariableSnapshotEntry[]): Record<string, VariableSnapshotEntry> {
  return Object.fromEntries(entries.map((entry) => [entry.name, entry]));
}

function digests(entries: readonly VariableSnapshotEntry[]): Record<string, string> {
  return Object.fromEntries(
    entries.flatMap((entry) => (entry.state === 'skipped' ? [] : [[entry.name, entry.digest]])),
  );
}

/** The digests after a worker's snapshot: an unchanged entry keeps the one sent. */
function digestsAfter(
  previous: Readonly<Record<string, string>>,
  entries: readonly WorkerSnapshotEntry[],
): Record<string, string> {
  return Object.fromEntries(
    entries.flatMap((entry) => {
      if (entry.state === 'saved') return [[entry.name, entry.digest]];
      const kept = previous[entry.name];
      return entry.state === 'unchanged' && kept !== undefined ? [[entry.name, kept]] : [];
    }),
  );
}

test('every structured-clone type survives a snapshot and a restore into a new sandbox', async () => {
  const source = await createSandbox({ hostFunctions: {} });
  const target = await createSandbox({ hostFunctions: {} });
  try {
    await source.setVariables({ context: 'the host context' }, { readOnly: true });
    const ran = await source.execute(`
      const counts = new Map([['a', 1], ['b', 2]]);
      const tags = new Set(['x', 'y']);
      const when = new Date(86400000);
      const pattern = /ab+c/gi;
      const ints = new Int32Array([15, -2]);
      const raw = new ArrayBuffer(4);
      new Uint8Array(raw)[1] = 7;
      const big = 2n ** 70n;
      const loop = { name: 'loop' };
      loop.self = loop;
      const sparse = [];
      sparse[3] = 'x';
      const negativeZero = -0;
      const notANumber = NaN;
      const helper = (x) => x + 1;
      class Point { constructor(x) { this.x = x; } }
      const point = new Point(1);
    `);
    expect(ran.error).toBeUndefined();
    const entries = await source.snapshotVariables!({
      exclude: ['context'],
      maxBytesPerVariable: mebibyte,
    });
    expect(entries.map((entry) => entry.name)).toEqual([
      'Point',
      'big',
      'counts',
      'helper',
      'ints',
      'loop',
      'negativeZero',
      'notANumber',
      'pattern',
      'point',
      'raw',
      'sparse',
      'tags',
      'when',
    ]);
    const named = byName(entries);
    expect(named.helper).toMatchObject({ state: 'skipped', reason: 'a function', tooLarge: false });
    expect(named.Point).toMatchObject({ state: 'skipped', reason: 'a function' });
    expect(named.point).toMatchObject({
      state: 'skipped',
      reason: 'a class instance',
      tooLarge: false,
    });
    const bytes: Record<string, Uint8Array> = {};
    for (const entry of entries) {
      if (entry.state !== 'saved') continue;
      expect(entry.digest).toBe(digestOf(entry.bytes));
      bytes[entry.name] = entry.bytes;
    }
    expect(Object.keys(bytes)).toHaveLength(11);
    expect(await target.restoreVariables!(bytes)).toEqual([]);
    const check = await target.execute(`JSON.stringify([
      counts instanceof Map && counts.get('b'),
      tags instanceof Set && tags.has('y'),
      when instanceof Date && when.getTime(),
      pattern instanceof RegExp && pattern.flags + pattern.source,
      ints instanceof Int32Array && ints[1],
      raw instanceof ArrayBuffer && new Uint8Array(raw)[1],
      typeof big === 'bigint' && String(big),
      loop.self === loop,
      sparse.length, 1 in sparse, sparse[3],
      Object.is(negativeZero, -0),
      Number.isNaN(notANumber),
    ])`);
    expect(check.error).toBeUndefined();
    expect(JSON.parse(check.output)).toEqual([
      2,
      true,
      86_400_000,
      'giab+c',
      -2,
      7,
      String(2n ** 70n),
      true,
      4,
      false,
      'x',
      true,
      true,
    ]);
    // Restored variables are model variables: code can reassign them.
    expect((await target.execute('counts = 1; counts')).output).toBe('1');
  } finally {
    await source.dispose();
    await target.dispose();
  }
});

test('a large variable left untouched over 10 steps crosses once; a change through an alias is seen', async () => {
  await sandbox.execute(`
    var text = 'lorem ipsum '.repeat(500000);
    var words = text.split(' ');
    var alias = words;
    var step = 0;
  `);
  const first = await sandbox.snapshotVariables!({ maxBytesPerVariable: 64 * mebibyte });
  expect(byName(first).text?.state).toBe('saved');
  expect(byName(first).words?.state).toBe('saved');
  let previous = digests(first);
  let bytesCrossed = 0;
  for (let index = 0; index < 10; index += 1) {
    await sandbox.execute('step += 1');
    const entries = await sandbox.snapshotVariables!({
      maxBytesPerVariable: 64 * mebibyte,
      previousDigests: previous,
    });
    const named = byName(entries);
    expect(named.text?.state).toBe('unchanged');
    expect(named.words?.state).toBe('unchanged');
    expect(named.step?.state).toBe('saved');
    for (const entry of entries)
      if (entry.state === 'saved') bytesCrossed += entry.bytes.byteLength;
    previous = digests(entries);
  }
  // Only `step` (a number, a few bytes each time) crossed after the first snapshot.
  expect(bytesCrossed).toBeLessThan(1_000);
  // Mutating the array without naming it is still caught: the bytes tell.
  await sandbox.execute("alias.push('extra')");
  const after = byName(
    await sandbox.snapshotVariables!({
      maxBytesPerVariable: 64 * mebibyte,
      previousDigests: previous,
    }),
  );
  expect(after.words?.state).toBe('saved');
  expect(after.text?.state).toBe('unchanged');
  // Without the caller's digests nothing counts as unchanged: all is sent again.
  const fresh = byName(await sandbox.snapshotVariables!({ maxBytesPerVariable: 64 * mebibyte }));
  expect(fresh.text?.state).toBe('saved');
});

test('digests the host holds decide what is unchanged, whether or not they are those last reported', async () => {
  await sandbox.execute('var kept = [1, 2, 3]; var other = { a: 1 }');
  const snapshot = (previousDigests?: Record<string, string>) =>
    sandbox.snapshotVariables!({
      maxBytesPerVariable: mebibyte,
      ...(previousDigests ? { previousDigests } : {}),
    });
  const first = await snapshot();
  // The same digests as reported (sent as a token, not again): unchanged.
  const second = byName(await snapshot(digests(first)));
  expect(second.kept?.state).toBe('unchanged');
  // A failed save makes the host forget them: everything is saved again.
  const afterFailure = byName(await snapshot({}));
  expect(afterFailure.kept?.state).toBe('saved');
  // Digests that differ from the last report in one name: that one is saved, the other not.
  const partial = { ...digests(first) };
  delete partial.other;
  const third = byName(await snapshot(partial));
  expect(third.kept?.state).toBe('unchanged');
  expect(third.other?.state).toBe('saved');
  // Concurrent snapshots each get what their caller holds.
  const held = digests(first);
  const [a, b] = await Promise.all([snapshot(held), snapshot({})]);
  expect(byName(a).kept?.state).toBe('unchanged');
  expect(byName(b).kept?.state).toBe('saved');
});

test('an execution preempts a large snapshot at once; the next snapshot is whole and restores', async () => {
  const source = await createSandbox({ hostFunctions: {} });
  const target = await createSandbox({ hostFunctions: {} });
  try {
    await source.execute(
      'var words = []; for (let i = 0; i < 3000000; i++) words.push("w" + (i % 5003)); var n = 1',
    );
    const snapshot = source.snapshotVariables!({ maxBytesPerVariable: 256 * mebibyte });
    const settled = snapshot.then(
      () => 'taken',
      (error: unknown) => error,
    );
    // Asked for after the snapshot: it runs while the snapshot would still be serialising.
    const ran = await source.execute('n += 1; print(n, words.length)');
    expect(ran).toMatchObject({ output: '2 3000000\n', error: undefined });
    const outcome = await settled;
    expect(outcome).toBeInstanceOf(SnapshotPreemptedError);
    expect(SnapshotPreemptedError.isInstance(outcome)).toBe(true);
    // The next snapshot is of the state after that execution, whole.
    const entries = byName(
      await source.snapshotVariables!({ maxBytesPerVariable: 256 * mebibyte }),
    );
    const words = entries.words;
    if (words?.state !== 'saved') throw new Error('words not saved');
    expect(words.digest).toBe(digestOf(words.bytes));
    const n = entries.n;
    if (n?.state !== 'saved') throw new Error('n not saved');
    expect(await target.restoreVariables!({ words: words.bytes, n: n.bytes })).toEqual([]);
    expect(
      (await target.execute('print(n, words.length, words[5004], words[2999999])')).output,
    ).toBe(`2 3000000 w1 w${2999999 % 5003}\n`);
  } finally {
    await Promise.all([source.dispose(), target.dispose()]);
  }
});

test('while a large variable is restored, listings are answered and an execution waits for it', async () => {
  const source = await createSandbox({ hostFunctions: {} });
  const target = await createSandbox({ hostFunctions: {} });
  try {
    await source.execute('var words = []; for (let i = 0; i < 3000000; i++) words.push("w" + i)');
    const [words] = await source.snapshotVariables!({ maxBytesPerVariable: 256 * mebibyte });
    if (words?.state !== 'saved') throw new Error('words not saved');
    const settled: string[] = [];
    const restoring = target.restoreVariables!({ words: words.bytes }).then((lost) => {
      settled.push('restored');
      return lost;
    });
    const listing = target.listVariables().then((variables) => {
      settled.push('listed');
      return variables;
    });
    const running = target.execute('print(words.length, words[2999999])');
    expect(await restoring).toEqual([]);
    // Asked for after the restore began, answered before it ended, without the variable.
    expect(settled).toEqual(['listed', 'restored']);
    expect((await listing).map((variable) => variable.name)).not.toContain('words');
    expect(await running).toMatchObject({ output: '3000000 w2999999\n', error: undefined });
  } finally {
    await Promise.all([source.dispose(), target.dispose()]);
  }
});

test('a variable over the size cap is named and skipped, the others saved', async () => {
  await sandbox.execute(`
    var huge = 'x'.repeat(3 * 1024 * 1024);
    var wide = '\u0151'.repeat(600 * 1024);
    var small = [1, 2, 3];
  `);
  const named = byName(await sandbox.snapshotVariables!({ maxBytesPerVariable: mebibyte }));
  expect(named.huge).toMatchObject({ state: 'skipped', tooLarge: true });
  expect((named.huge as { reason: string }).reason).toContain('1048576');
  // 600 Ki two-byte characters serialise to 1.2 MiB: over, though the copy counted 600 KiB.
  expect(named.wide).toMatchObject({ state: 'skipped', tooLarge: true });
  expect(named.small?.state).toBe('saved');
});

test('bad options and names are refused with a SandboxError, nothing left waiting', async () => {
  await expect(sandbox.snapshotVariables!({ maxBytesPerVariable: 0 })).rejects.toThrow(
    /maxBytesPerVariable must be a positive integer/,
  );
  await expect(sandbox.restoreVariables!({ 'not a name': new Uint8Array(1) })).rejects.toThrow(
    /cannot restore "not a name"/,
  );
  // Bytes that are not a snapshot: the name comes back as not restored.
  expect(await sandbox.restoreVariables!({ garbage: new Uint8Array([1, 2, 3]) })).toEqual([
    'garbage',
  ]);
  expect((await sandbox.execute('1 + 1')).output).toBe('2');
});

describe('what is serialised again', () => {
  /** A worker's variables and a CheckpointVariables over them, run step by step. */
  function harness() {
    const variables = new Map<string, unknown>();
    const reach = new ReachTracker();
    const checkpoints = new CheckpointVariables(reach);
    let previous: Record<string, string> = {};
    const readVariable = (name: string) => variables.get(name);
    return {
      variables,
      checkpoints,
      /** An execution naming `names` that runs `body`. */
      step(names: string[], body: () => void, everything = false, captured: string[] = []) {
        reach.beforeExecution({ names, everything }, readVariable);
        body();
        reach.afterExecution(
          { captured: new Set(captured), capturesDynamically: false },
          readVariable,
        );
      },
      /** Snapshots and returns how many values were serialised. */
      async snapshot(): Promise<number> {
        const before = checkpoints.serializations;
        const taken = await checkpoints.snapshot(
          variables,
          { maxBytesPerVariable: 64 * mebibyte, previousDigests: previous },
          { sliceMs: Number.POSITIVE_INFINITY, pause: () => Promise.resolve() },
        );
        if (taken === undefined) throw new Error('preempted');
        previous = digestsAfter(previous, taken.entries);
        return checkpoints.serializations - before;
      },
    };
  }

  test('a large array no execution names is serialised once over 10 steps', async () => {
    const run = harness();
    run.step(['words', 'counts'], () => {
      run.variables.set('words', 'lorem ipsum '.repeat(100_000).split(' '));
      run.variables.set('counts', new Map([['lorem', 100_000]]));
    });
    expect(await run.snapshot()).toBe(2);
    for (let step = 1; step <= 10; step += 1) {
      run.step(['step'], () => run.variables.set('step', step));
      expect(await run.snapshot()).toBe(1);
    }
  });

  test('a change through an alias, a closure or a dynamic reach is serialised again', async () => {
    const run = harness();
    run.step(['words', 'alias'], () => {
      const words = ['a'];
      run.variables.set('words', words);
      run.variables.set('alias', words);
    });
    run.step(['add'], () => run.variables.set('add', () => {}), false, ['words']);
    run.variables.set('other', { n: 1 });
    expect(await run.snapshot()).toBe(4);
    // Through the alias only: `words` is in its group, and so is `add`, which names it.
    run.step(['alias'], () => (run.variables.get('alias') as string[]).push('b'));
    expect(await run.snapshot()).toBe(3);
    // Through a closure that names `words`: calling any function marks what functions name.
    run.step(['add'], () => (run.variables.get('words') as string[]).push('c'), false, ['words']);
    expect(await run.snapshot()).toBe(3);
    // `globalThis`, `eval` or a guest helper: everything is serialised again.
    run.step([], () => {}, true);
    expect(await run.snapshot()).toBe(4);
    // Nothing named: nothing serialised, but for the function, which is never saved and so is
    // checked again each time (refused at once, nothing copied).
    run.step([], () => {});
    expect(await run.snapshot()).toBe(1);
  });

  /** Snapshots that pause after every piece and are preempted at the `preemptAt`-th pause. */
  async function preemptedSnapshot(
    checkpoints: CheckpointVariables,
    variables: Map<string, unknown>,
    preemptAt: number,
  ) {
    let pauses = 0;
    return checkpoints.snapshot(
      variables,
      { maxBytesPerVariable: 64 * mebibyte, previousDigests: {} },
      {
        sliceMs: 0,
        pause: async () => {
          pauses += 1;
          if (pauses === preemptAt) checkpoints.preempt();
        },
      },
    );
  }

  const joined = (entry: WorkerSnapshotEntry | undefined) => {
    if (entry?.state !== 'saved') throw new Error(`not saved: ${JSON.stringify(entry)}`);
    return Buffer.concat(entry.parts);
  };

  test('a preempted snapshot keeps the pieces it made: the next one goes on from there', async () => {
    const reach = new ReachTracker();
    const checkpoints = new CheckpointVariables(reach);
    const words = Array.from({ length: pieceElements * 4 + 5 }, (_, index) => `w${index % 977}`);
    const variables = new Map<string, unknown>([['words', words]]);
    expect(await preemptedSnapshot(checkpoints, variables, 2)).toBeUndefined();
    const pausesBefore = checkpoints.pauses;
    const taken = await preemptedSnapshot(checkpoints, variables, -1);
    // Made once, across both; the second made only the pieces the first had not.
    expect(checkpoints.serializations).toBe(1);
    expect(checkpoints.pauses - pausesBefore).toBeLessThan(4);
    const bytes = joined(taken?.entries[0]);
    expect(deserializeCheckpointBytes(bytes)).toEqual(words);
    expect(taken?.entries[0]).toMatchObject({ state: 'saved', digest: digestOf(bytes) });
  });

  test('what a preempted snapshot made is dropped when an execution may have changed it', async () => {
    const reach = new ReachTracker();
    const checkpoints = new CheckpointVariables(reach);
    const readVariable = (name: string) => variables.get(name);
    const words = Array.from({ length: pieceElements * 3 }, (_, index) => `w${index}`);
    const variables = new Map<string, unknown>([['words', words]]);
    expect(await preemptedSnapshot(checkpoints, variables, 2)).toBeUndefined();
    reach.beforeExecution({ names: ['words'], everything: false }, readVariable);
    words[0] = 'changed';
    reach.afterExecution({ captured: new Set(), capturesDynamically: false }, readVariable);
    const taken = await preemptedSnapshot(checkpoints, variables, -1);
    expect(checkpoints.serializations).toBe(2);
    expect((deserializeCheckpointBytes(joined(taken?.entries[0])) as string[])[0]).toBe('changed');
  });
});
