import { describe, expect, test } from 'vitest';
import { formatCost, formatDollars, formatRunTotals } from './format-run-totals.js';

const usage = {
  inputTokens: 300,
  outputTokens: 700,
  cacheReadTokens: 900,
  cacheWriteTokens: 300,
  modelCalls: 3,
};

describe('formatRunTotals', () => {
  test('every token counted, the cache reads named, the cost in dollars', () => {
    expect(formatRunTotals({ ...usage, costUsd: 0.009 })).toBe(
      '2,200 tokens (900 cache reads) · $0.0090',
    );
  });

  test('no cache reads: no cache part', () => {
    expect(formatRunTotals({ ...usage, cacheReadTokens: 0, costUsd: 0.5 })).toBe(
      '1,300 tokens · $0.5000',
    );
  });

  test('an unpriced model: the cost is unknown or the priced part plus the unpriced calls', () => {
    expect(formatRunTotals({ ...usage, unpricedModelCalls: 3 })).toBe(
      '2,200 tokens (900 cache reads) · cost unknown',
    );
    expect(formatCost({ costUsd: 0.01, unpricedModelCalls: 2 })).toBe('$0.0100 + 2 unpriced calls');
    expect(formatCost({ costUsd: 0.01, unpricedModelCalls: 1 })).toBe('$0.0100 + 1 unpriced call');
  });

  test('dollars: four decimals below one dollar, cents from one up', () => {
    expect(formatDollars(0.00049)).toBe('$0.0005');
    expect(formatDollars(12.3456)).toBe('$12.35');
  });
});
