import { emptyRunUsage, type RunUsage } from '@rlm/core';
import { expect, test } from 'vitest';
import type { BatchJob } from '../../jobs/parse-batch-jobs.js';
import { RunTally } from '../../rlm/run-tally.js';
import { BatchTally } from './batch-tally.js';

const job = (id: number): BatchJob => ({
  id,
  key: String(id),
  query: `q${id}`,
  contextFile: undefined,
  line: id,
});

const usage = (inputTokens: number, costUsd: number): RunUsage => ({
  ...emptyRunUsage(),
  inputTokens,
  modelCalls: 1,
  costUsd,
});

function spending(inputTokens: number, costUsd: number): RunTally {
  const tally = new RunTally();
  tally.observe({
    callId: 'root',
    depth: 0,
    type: 'usage',
    usage: { inputTokens, outputTokens: 0 },
    modelId: 'm',
    costUsd,
    modelCalls: 1,
  });
  return tally;
}

test('running jobs count what they spent so far; an ended job keeps it; a result adds usage only when asked', () => {
  const batch = new BatchTally();
  batch.total = 4;
  const [one, two, three, four] = [job(1), job(2), job(3), job(4)];
  batch.started(one, spending(100, 0.5));
  batch.started(two, spending(10, 0.25));
  expect(batch.progress()).toMatchObject({ total: 4, running: 2, tokens: 110, costUsd: 0.75 });
  batch.ended(one);
  // Run here: the tally counted its usage already, so the result's usage is not added again.
  batch.finished(one, { id: 1, answer: 'a', usage: usage(100, 0.5), durationMs: 1 }, false);
  // Run by a queue worker: nothing here counted it.
  batch.finished(
    three,
    { id: 3, error: { name: 'Error', message: 'no' }, usage: usage(1000, 1), durationMs: 1 },
    true,
  );
  batch.skipped(four);
  expect(batch.progress()).toMatchObject({ answered: 1, failed: 1, running: 1, tokens: 1110 });
  expect(batch.spent().costUsd).toBe(1.75);
  expect(batch.notRun).toEqual([four]);
});

test('the store failures of results are kept with their job', () => {
  const batch = new BatchTally();
  const first = { operation: 'store', message: 'disk full' } as const;
  batch.finished(
    job(1),
    {
      id: 1,
      answer: 'a',
      usage: emptyRunUsage(),
      durationMs: 1,
      storeFailures: { count: 2, first },
    },
    false,
  );
  expect(batch.storeFailed).toEqual([{ job: job(1), first }]);
});
