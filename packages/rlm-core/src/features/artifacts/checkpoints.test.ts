import { describe, expect, test } from 'vitest';
import type { Checkpoint } from '../../artifact-store.js';
import { resumeStateOf } from './checkpoints.js';
import { CheckpointCorruptError } from '../../errors/checkpoint-corrupt-error.js';

const checkpoint: Checkpoint = {
  id: 'c2',
  runKey: 'run-1',
  sequence: 2,
  callId: 'call-1',
  iteration: 1,
  timestamp: 0,
  transcriptLength: 3,
  variableNames: ['rows', 'counts', 'helper'],
  transcript: [
    { role: 'user', content: 'query' },
    { role: 'assistant', content: [{ type: 'text', text: 'step 1' }] },
    { role: 'user', content: 'output 1' },
  ],
  variables: { rows: [1, 2] },
  serializedVariables: { counts: new Uint8Array([1]) },
  serializedDigests: { counts: 'd'.repeat(64) },
  serializedBlobs: {},
  budget: {
    inputTokens: 10,
    outputTokens: 2,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    modelCalls: 1,
    elapsedMs: 5,
  },
  metadata: { skipped: { helper: 'a function' } },
};

describe('resumeStateOf', () => {
  test('reads what a checkpoint that holds together restores', () => {
    const state = resumeStateOf(checkpoint);
    expect(state.iteration).toBe(1);
    expect(state.transcript).toHaveLength(3);
    expect(state.lost).toEqual(['helper']);
    expect(state.lostReasons).toEqual({ helper: 'a function' });
  });

  test.each<[string, Partial<Checkpoint>, RegExp]>([
    [
      'a transcript length it does not hold',
      { transcriptLength: 1_000_000_000 },
      /claims 1000000000 transcript messages but holds 3/,
    ],
    [
      'an iteration past its messages',
      { iteration: 1_000_000_000 },
      /iteration 1000000000 is not a count of the steps its 3 messages record/,
    ],
    ['a negative iteration', { iteration: -1 }, /iteration -1/],
    [
      'a message of another role',
      {
        transcript: [...checkpoint.transcript.slice(0, 2), { role: 'system' } as never],
      },
      /transcript message 2 is not a user or assistant message/,
    ],
    ['a variable named twice', { variableNames: ['rows', 'rows'] }, /names a variable twice/],
    [
      'a value it does not name',
      { variableNames: ['counts'] },
      /its variables hold "rows", which it does not name/,
    ],
    [
      'serialised bytes that are not bytes',
      { serializedVariables: { counts: 'AAAA' as never } },
      /wrong kind of value for "counts"/,
    ],
    [
      'a budget that is not counts',
      { budget: { ...checkpoint.budget, modelCalls: Number.NaN } },
      /budget's modelCalls is not a count/,
    ],
  ])('refuses %s with one error naming the run and the checkpoint', (_lie, change, problem) => {
    let error: unknown;
    try {
      resumeStateOf({ ...checkpoint, ...change });
    } catch (caught) {
      error = caught;
    }
    expect(CheckpointCorruptError.isInstance(error)).toBe(true);
    const { message, runKey, checkpointId } = error as CheckpointCorruptError;
    expect({ runKey, checkpointId }).toEqual({ runKey: 'run-1', checkpointId: 'c2' });
    expect(message).toMatch(
      /^@rlm\/core: checkpoint "c2" of run "run-1" does not hold together \(/,
    );
    expect(message).toMatch(problem);
    expect(message).toMatch(/start the run again without resuming it$/);
  });
});
