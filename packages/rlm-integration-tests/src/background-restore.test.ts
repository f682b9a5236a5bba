import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteArtifactStore } from '@rlm/artifacts';
import { type ArtifactStore, createRLM, hashContext, type RlmEvent, runKey } from '@rlm/core';
import { createScriptedModel } from '@rlm/core/testing';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { sandboxFactory } from './sandbox-under-test.js';

/**
 * `--resume` off the critical path, through the real SES sandbox and a real SQLite file: the
 * model is asked for the first step while the saved variables are still being read and
 * restored; the first execution waits for them; a damaged blob becomes a lost variable the
 * model is told about, and the run goes on.
 */

const repl = (code: string) => `\`\`\`repl\n${code}\n\`\`\``;

let directory: string;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'rlm-background-restore-'));
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
}, 60_000);

async function collect(stream: AsyncIterable<RlmEvent>): Promise<RlmEvent[]> {
  const events: RlmEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** `store` whose `loadBytes` first waits for `gate`, in every scoped view too. */
function withGatedLoads(
  store: ArtifactStore,
  gate: Promise<void>,
  seen: { waiting: number },
): ArtifactStore {
  return new Proxy(store, {
    get(target, property) {
      if (property === 'loadBytes') {
        return async (id: string) => {
          seen.waiting += 1;
          await gate;
          seen.waiting -= 1;
          return target.loadBytes(id);
        };
      }
      if (property === 'scoped') {
        return (scope: string) => withGatedLoads(target.scoped(scope), gate, seen);
      }
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** A run that saves `counts` (a large Map) and `when` (a Date) at step 1, then crashes. */
async function crashAfterStep1(path: string, query: string): Promise<void> {
  await using artifacts = await createSqliteArtifactStore({ path });
  const crashing = createScriptedModel([
    // `counts` is large enough for a blob of its own; `when` is kept in the checkpoint itself.
    repl(
      'var counts = new Map([["a", 1], ["b", 2]]);\nfor (let i = 0; i < 2000; i++) counts.set("k" + i, i);\nvar when = new Date(86400000);',
    ),
    { error: new Error('process crashed') },
  ]);
  await using rlm = createRLM({ model: crashing, sandbox: sandboxFactory, artifacts });
  await expect(rlm.query(query, 'ctx')).rejects.toThrow('process crashed');
}

test('the first model call after a resume does not wait for the saved variables; the first block uses them', async () => {
  const path = join(directory, 'gated.sqlite');
  await crashAfterStep1(path, 'gated');
  await using store = await createSqliteArtifactStore({ path });
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const loads = { waiting: 0 };
  let waitingAtFirstCall: number | undefined;
  const llm = createScriptedModel([
    (request) => {
      // The restore is still reading the variables' bytes: were the model call waiting for
      // it, it would never be made (the gate opens only here).
      waitingAtFirstCall = loads.waiting;
      expect(JSON.stringify(request.messages)).toContain('Variables restored: counts, when.');
      release();
      return repl(
        'SUBMIT([...counts.entries()].slice(0, 2).flat().join(",") + " " + counts.size + " " + when.toISOString())',
      );
    },
  ]);
  await using rlm = createRLM({
    model: llm,
    sandbox: sandboxFactory,
    artifacts: withGatedLoads(store, gate, loads),
  });
  const events = await collect(rlm.queryStream('gated', 'ctx', { resume: true }));
  expect(waitingAtFirstCall).toBe(1);
  expect(events.find((event) => event.type === 'resumed')).toMatchObject({
    iteration: 1,
    restored: ['counts', 'when'],
    lost: [],
  });
  expect(events.find((event) => event.type === 'final')).toMatchObject({
    answer: 'a,1,b,2 2002 1970-01-02T00:00:00.000Z',
  });
  expect(events.filter((event) => event.type === 'warning')).toEqual([]);
});

/** Flips one byte of `needle` wherever it is stored in the SQLite file or its WAL. */
async function damageStoredBytes(path: string, needle: Buffer): Promise<void> {
  const folder = join(path, '..');
  const files = (await readdir(folder)).filter((name) => name.startsWith('damaged.sqlite'));
  let damaged = 0;
  for (const name of files) {
    const file = join(folder, name);
    const bytes = await readFile(file);
    for (let at = bytes.indexOf(needle); at >= 0; at = bytes.indexOf(needle, at + 1)) {
      const middle = at + Math.floor(needle.length / 2);
      bytes[middle] = (bytes[middle] as number) ^ 0xff;
      damaged += 1;
    }
    await writeFile(file, bytes);
  }
  expect(damaged).toBeGreaterThan(0);
}

test('a damaged blob becomes a lost variable: the model is told with its first output, the run goes on', async () => {
  const path = join(directory, 'damaged.sqlite');
  await crashAfterStep1(path, 'damaged');
  let countsMiddle: Buffer;
  {
    await using store = await createSqliteArtifactStore({ path });
    const checkpoint = await store.latestCheckpoint(runKey('damaged', hashContext('ctx')));
    const bytes = Buffer.from(checkpoint!.serializedVariables.counts!);
    countsMiddle = bytes.subarray(bytes.length / 2, bytes.length / 2 + 64);
  }
  await damageStoredBytes(path, countsMiddle);

  await using store = await createSqliteArtifactStore({ path });
  let secondRequest = '';
  const llm = createScriptedModel([
    repl('console.log(typeof counts, when.getTime())'),
    (request) => {
      secondRequest = JSON.stringify(request.messages);
      return repl('var counts = new Map([["a", 10]]);\nSUBMIT(counts.get("a") + when.getTime())');
    },
  ]);
  await using rlm = createRLM({ model: llm, sandbox: sandboxFactory, artifacts: store });
  const events = await collect(rlm.queryStream('damaged', 'ctx', { resume: true }));
  expect(events.find((event) => event.type === 'final')).toMatchObject({
    answer: 10 + 86_400_000,
  });
  // The first block ran with `when` restored and `counts` missing, and the model was told why.
  expect(events.find((event) => event.type === 'execution')).toMatchObject({
    output: 'undefined 86400000',
  });
  expect(secondRequest).toContain(
    'these variables could not be restored after the resume and are not defined: counts (its saved copy could not be read)',
  );
  const warnings = events.filter((event) => event.type === 'warning');
  expect(warnings).toEqual([
    expect.objectContaining({
      code: 'resume-variables-lost',
      message: expect.stringContaining('Could not restore after the resume: counts ('),
    }),
  ]);
  expect(JSON.stringify(warnings)).toContain('SHA-256');
});
