import type { DurableToolEvent } from '@rlm/core';
import { describe, expect, test } from 'vitest';
import { ToolActivityTally } from './tool-activity-tally.js';

const event = (fields: Partial<DurableToolEvent>): DurableToolEvent => ({
  type: 'durable-tool',
  callId: 'root',
  depth: 0,
  role: 'csv',
  method: 'sum',
  activity: 'reused',
  source: 'persisted',
  ...fields,
});

describe('ToolActivityTally', () => {
  test('writing shows on the status until the code has run', () => {
    const tally = new ToolActivityTally();
    tally.add(event({ activity: 'writing', source: 'generated' }));
    expect(tally.writing).toBe('tool csv.sum · writing code');
    expect(tally.isEmpty).toBe(true);
    tally.add(event({ activity: 'failed', source: 'generated', retry: true }));
    expect(tally.writing).toBeUndefined();
    tally.add(event({ activity: 'writing', source: 'repaired' }));
    expect(tally.writing).toBe('tool csv.sum · repairing code');
  });

  test('a forge that failed once, then forty reuses of another method: three lines', () => {
    const tally = new ToolActivityTally();
    tally.add(
      event({
        activity: 'failed',
        source: 'generated',
        error: { name: 'TypeError', message: 'rows is not iterable' },
        retry: true,
      }),
    );
    tally.add(event({ activity: 'saved', source: 'generated', generationId: 'gen-1' }));
    for (let call = 0; call < 40; call += 1) {
      tally.add(event({ role: 'csv', method: 'parse', activity: 'reused', generationId: 'gen-3' }));
    }
    expect(tally.lines()).toEqual([
      {
        kind: 'failed',
        text: 'tool csv.sum failed: TypeError: rows is not iterable (the code was rewritten)',
      },
      { kind: 'saved', text: 'tool csv.sum saved gen-1 (new code)' },
      { kind: 'reused', text: 'tool csv.parse reused gen-3 ×40' },
    ]);
  });

  test('a repaired generation and repeated failures are counted, the first error kept', () => {
    const tally = new ToolActivityTally();
    for (const message of ['first', 'second']) {
      tally.add(
        event({ activity: 'failed', generationId: 'gen-2', error: { name: 'Error', message } }),
      );
    }
    tally.add(event({ activity: 'saved', source: 'repaired', generationId: 'gen-3' }));
    expect(tally.lines()).toEqual([
      { kind: 'failed', text: 'tool csv.sum failed ×2: Error: first' },
      { kind: 'saved', text: 'tool csv.sum saved gen-3 (repaired code)' },
    ]);
  });
});
