import { describe, expect, test } from 'vitest';
import { estimateTimeLeftMs, formatBatchProgress } from './format-batch-progress.js';

const start = {
  total: 20,
  answered: 0,
  failed: 0,
  running: 4,
  tokens: 0,
  costUsd: undefined,
  elapsedMs: 500,
};

describe('formatBatchProgress', () => {
  test('before any job ends: no time left estimate, cost unknown without a price', () => {
    expect(formatBatchProgress(start)).toBe(
      '0/20 done · 4 running · 0 tokens · cost unknown · 500 ms',
    );
  });

  test('done counts failures, which are also named; the time left follows the pace so far', () => {
    const line = formatBatchProgress({
      ...start,
      answered: 8,
      failed: 2,
      tokens: 12_345,
      costUsd: 0.0123,
      elapsedMs: 20_000,
    });
    expect(line).toBe(
      '10/20 done · 2 failed · 4 running · 12,345 tokens · $0.0123 · 20.0 s · ~20.0 s left',
    );
  });

  test('no estimate once every job has ended', () => {
    expect(estimateTimeLeftMs({ ...start, answered: 19, failed: 1, running: 0 })).toBeUndefined();
  });
});
