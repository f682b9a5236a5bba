import { describe, expect, test } from 'vitest';
import { asWrittenWithRoundedCosts, roundCost, roundCosts } from './round-costs.js';

describe('roundCost', () => {
  test('sums of per-call costs lose their floating-point noise, and nothing else', () => {
    const noisy = 0.0001 + 0.0002 + 0.001 + 0.0018060000000000001;
    expect(String(noisy)).not.toBe('0.003106');
    expect(roundCost(noisy)).toBe(0.003106);
    expect(roundCost(0.000000123456)).toBe(0.000000123);
    expect(roundCost(12.5)).toBe(12.5);
    expect(roundCost(0)).toBe(0);
  });

  test('as a replacer: every costUsd, at any depth; nothing else', () => {
    const text = JSON.stringify(
      { costUsd: 0.1 + 0.2, usage: { costUsd: 0.30000000000000004, inputTokens: 0.1 + 0.2 } },
      roundCosts,
    );
    expect(text).toBe('{"costUsd":0.3,"usage":{"costUsd":0.3,"inputTokens":0.30000000000000004}}');
  });

  test('a value as written: its costs rounded at any depth, a copy, the rest as it was', () => {
    const line = { id: 1, costUsd: 0.1 + 0.2, judge: { costUsd: 0.30000000000000004 }, score: 0.5 };
    const written = asWrittenWithRoundedCosts(line);
    expect(written).toEqual({ id: 1, costUsd: 0.3, judge: { costUsd: 0.3 }, score: 0.5 });
    expect(line.costUsd).toBe(0.30000000000000004);
  });
});
