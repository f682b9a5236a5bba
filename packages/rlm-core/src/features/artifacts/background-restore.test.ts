import { expect, test } from 'vitest';
import type { Checkpoint } from '../../artifact-store.js';
import { planRestore, restoreInBackground, unrestoredNote } from './background-restore.js';
import { resumeNote, resumeStateOf } from './checkpoints.js';
import type { Sandbox } from '../../sandbox.js';

const checkpoint: Checkpoint = {
  id: 'c1',
  runKey: 'run',
  sequence: 1,
  callId: 'root',
  iteration: 2,
  timestamp: 0,
  transcriptLength: 4,
  variableNames: ['counts', 'rows', 'helper'],
  transcript: [
    { role: 'user', content: 'query' },
    { role: 'assistant', content: 'step 1' },
    { role: 'user', content: 'output 1' },
    { role: 'assistant', content: 'step 2' },
  ],
  variables: { rows: [1] },
  serializedVariables: {},
  serializedDigests: { counts: 'd'.repeat(64) },
  serializedBlobs: { counts: 'dddddddddddd' },
  budget: {
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    modelCalls: 2,
    elapsedMs: 0,
  },
  metadata: { skipped: { helper: 'a function' } },
};

/** A sandbox seen through the narrow interface only: no `restoreVariables`. */
const narrow = {} as Sandbox;

test('a checkpoint loaded without bytes still counts its serialised variables as restored', () => {
  const state = resumeStateOf(checkpoint);
  expect(state.lost).toEqual(['helper']);
  expect(resumeNote(state)).toContain('Variables restored: counts, rows.');
});

test('a sandbox without restoreVariables loses the serialised variables at once, with the reason', async () => {
  const state = planRestore(resumeStateOf(checkpoint), narrow);
  expect(state.lost).toEqual(['helper', 'counts']);
  expect(resumeNote(state)).toContain('counts (this sandbox could not restore it)');
  // Nothing is left to restore in the background, and nothing is read.
  const loads: string[] = [];
  const lost = await restoreInBackground({
    sandbox: narrow,
    artifacts: {
      loadBytes: async (id) => {
        loads.push(id);
        return new Uint8Array();
      },
    },
    state,
  });
  expect(lost).toEqual([]);
  expect(loads).toEqual([]);
});

test('a blob that cannot be read is lost with its reason; the others are restored in one call', async () => {
  const state = resumeStateOf({
    ...checkpoint,
    variableNames: [...checkpoint.variableNames, 'words'],
    serializedDigests: { counts: 'd'.repeat(64), words: 'e'.repeat(64) },
    serializedBlobs: { counts: 'dddddddddddd', words: 'eeeeeeeeeeee' },
  });
  const restored: string[][] = [];
  const sandbox = {
    restoreVariables: async (bytes: Readonly<Record<string, Uint8Array>>) => {
      restored.push(Object.keys(bytes));
      return [];
    },
  } as unknown as Sandbox;
  const lost = await restoreInBackground({
    sandbox,
    artifacts: {
      loadBytes: async (id) => {
        if (id === 'dddddddddddd') throw new Error('blob dddddddddddd is damaged');
        return new Uint8Array([1]);
      },
    },
    state,
  });
  expect(restored).toEqual([['words']]);
  expect(lost).toEqual([
    {
      name: 'counts',
      reason: 'its saved copy could not be read',
      detail: 'blob dddddddddddd is damaged',
    },
  ]);
  expect(unrestoredNote(lost)).toBe(
    'Note: these variables could not be restored after the resume and are not defined: counts (its saved copy could not be read). Recompute them if you need them.',
  );
});
