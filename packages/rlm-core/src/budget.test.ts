import { describe, expect, test } from 'vitest';
import { Budget } from './budget.js';
import { defaultModelPrices } from './cost/model-prices.js';
import { BudgetExhaustedError } from './errors/budget-exhausted-error.js';

function caught(action: () => void): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('Budget', () => {
  test('counts model calls, tokens and cache tokens', () => {
    const budget = new Budget();
    budget.reserveModelCall();
    budget.record({ inputTokens: 5, outputTokens: 7, cacheReadTokens: 3 }, 'scripted');
    expect(budget.usage).toEqual({
      inputTokens: 5,
      outputTokens: 7,
      cacheReadTokens: 3,
      cacheWriteTokens: 0,
      modelCalls: 1,
      unpricedModelCalls: 1,
    });
  });

  test('prices a call of a known model and returns its cost', () => {
    const budget = new Budget({}, defaultModelPrices);
    budget.reserveModelCall();
    const cost = budget.record(
      { inputTokens: 1_000, outputTokens: 100, cacheReadTokens: 10_000, cacheWriteTokens: 2_000 },
      'anthropic:claude-sonnet-5-5',
    );
    // 1,000 x $2 + 100 x $10 + 10,000 x $0.2 + 2,000 x $2.5, per million tokens.
    expect(cost).toBeCloseTo(0.01, 10);
    expect(budget.usage.costUsd).toBeCloseTo(0.01, 10);
    expect(budget.usage.unpricedModelCalls).toBeUndefined();
  });

  test('an unpriced model has no cost and is counted, never guessed', () => {
    const budget = new Budget({}, defaultModelPrices);
    budget.reserveModelCall();
    expect(budget.record({ inputTokens: 10, outputTokens: 1 }, 'local:mystery-7b')).toBeUndefined();
    expect(budget.usage.costUsd).toBeUndefined();
    budget.reserveModelCall();
    budget.record({ inputTokens: 1_000_000, outputTokens: 0 }, 'openai:gpt-5');
    expect(budget.usage.costUsd).toBeCloseTo(1.25, 10);
    expect(budget.usage.unpricedModelCalls).toBe(1);
  });

  test('refuses a call past maxModelCalls with a typed error', () => {
    const budget = new Budget({ maxModelCalls: 1 });
    budget.reserveModelCall();
    const error = caught(() => budget.reserveModelCall());
    expect(BudgetExhaustedError.isInstance(error)).toBe(true);
    expect((error as BudgetExhaustedError).budget).toBe('modelCalls');
  });

  test('refuses a call once tokens are spent, cache tokens included', () => {
    const budget = new Budget({ maxTokens: 10 });
    budget.reserveModelCall();
    budget.record({ inputTokens: 2, outputTokens: 2, cacheReadTokens: 6 }, 'scripted');
    expect(() => budget.reserveModelCall()).toThrow(/token budget/);
  });

  test('refuses a call once dollars are spent, naming the setting to raise', () => {
    const budget = new Budget({ maxCostUsd: 0.01 }, defaultModelPrices);
    budget.reserveModelCall();
    budget.record({ inputTokens: 4_000, outputTokens: 0 }, 'claude-sonnet-5-5');
    budget.reserveModelCall();
    budget.record({ inputTokens: 1_000, outputTokens: 0 }, 'claude-sonnet-5-5');
    const error = caught(() => budget.reserveModelCall());
    expect(BudgetExhaustedError.isInstance(error)).toBe(true);
    expect((error as BudgetExhaustedError).budget).toBe('cost');
    expect((error as Error).message).toMatch(/raise budget\.maxCostUsd/);
  });

  test('restores usage from a checkpoint, cost included', () => {
    const budget = new Budget({ maxCostUsd: 1 }, defaultModelPrices);
    budget.restore({
      inputTokens: 1,
      outputTokens: 2,
      cacheReadTokens: 3,
      cacheWriteTokens: 4,
      modelCalls: 2,
      costUsd: 1,
    });
    expect(budget.usage).toMatchObject({ cacheReadTokens: 3, cacheWriteTokens: 4, costUsd: 1 });
    expect(() => budget.reserveModelCall()).toThrow(/cost budget/);
  });

  test('admitBatch refuses a batch larger than the model calls left, charging nothing', () => {
    const budget = new Budget({ maxModelCalls: 3 });
    budget.reserveModelCall();
    expect(() => budget.admitBatch(2, 'b(prompts)')).not.toThrow();
    expect(() => budget.admitBatch(3, 'b(prompts)')).toThrow(
      'b(prompts): refused: 3 calls do not fit in the model call budget, which has 2 left (budget.maxModelCalls 3); nothing was sent. Send at most 2, fewer to keep some for your answer',
    );
    expect(budget.usage.modelCalls).toBe(1);
    budget.reserveModelCall();
    budget.reserveModelCall();
    expect(() => budget.admitBatch(1, 'b(prompts)')).toThrow(
      'b(prompts): refused: the model call budget, which has 0 left (budget.maxModelCalls 3); nothing was sent. Answer with what you have',
    );
    expect(() => new Budget().admitBatch(10_000, 'b(prompts)')).not.toThrow();
    expect(new Budget({ maxTokens: 10 }).remaining).toEqual({ tokens: 10 });
  });
});
