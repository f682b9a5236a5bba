import type { RlmEvent } from '@rlm/core';
import { expect, test } from 'vitest';
import { RunTally } from './run-tally.js';
import { nothingSpent } from '../test-support/nothing-spent.js';

const base = { callId: 'root', depth: 0 };

test('sums usage across depths, counts root iterations, keeps the deepest depth', () => {
  const tally = new RunTally();
  const events: RlmEvent[] = [
    { ...base, type: 'step-start', iteration: 1 },
    {
      ...base,
      type: 'usage',
      usage: { inputTokens: 100, outputTokens: 10 },
      modelId: 'anthropic:claude-sonnet-5-5',
      costUsd: 0.0003,
      modelCalls: 1,
    },
    { callId: 'child', depth: 1, type: 'step-start', iteration: 1 },
    { callId: 'child', depth: 1, type: 'step-start', iteration: 2 },
    {
      callId: 'child',
      depth: 1,
      type: 'usage',
      usage: { inputTokens: 50, outputTokens: 5, cacheReadTokens: 40 },
      modelId: 'local:unpriced',
      modelCalls: 2,
    },
    { ...base, type: 'step-start', iteration: 2 },
  ];
  for (const event of events) tally.observe(event);
  expect(tally.snapshot()).toEqual({
    iterations: 2,
    depthReached: 1,
    usage: {
      inputTokens: 150,
      outputTokens: 15,
      cacheReadTokens: 40,
      cacheWriteTokens: 0,
      modelCalls: 2,
      costUsd: 0.0003,
      unpricedModelCalls: 1,
    },
    callUsage: [],
    durationMs: expect.any(Number),
  });
  // The child's step is a sub-call; so is a model call serving a host request of the root.
  expect(tally.subCalls).toBe(1);
  tally.observe({
    ...base,
    type: 'usage',
    usage: { inputTokens: 5, outputTokens: 5 },
    modelId: 'anthropic:claude-sonnet-5-5',
    modelCalls: 3,
    requestId: 'req-1',
  });
  expect(tally.subCalls).toBe(2);
});

test('nothing observed: zeros and a zero cost', () => {
  expect(new RunTally().snapshot()).toEqual({ ...nothingSpent, durationMs: expect.any(Number) });
});

test('a failed root call hands over the usage of each call', () => {
  const tally = new RunTally();
  const callUsage = [
    {
      callId: 'call-1',
      kind: 'root' as const,
      usage: {
        inputTokens: 5,
        outputTokens: 1,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        modelCalls: 1,
        costUsd: 0.001,
      },
    },
  ];
  tally.observe({
    callId: 'call-1',
    depth: 0,
    type: 'call-error',
    message: 'spent',
    errorName: 'BudgetExhaustedError',
    callUsage,
  });
  expect(tally.snapshot().callUsage).toEqual(callUsage);
});
