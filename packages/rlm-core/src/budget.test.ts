import { describe, expect, test } from 'vitest';
import { Budget } from './budget.js';
import { BudgetExhaustedError } from './errors/budget-exhausted-error.js';

describe('Budget', () => {
  test('counts model calls and tokens', () => {
    const budget = new Budget();
    budget.reserveModelCall();
    budget.record({ inputTokens: 5, outputTokens: 7 });
    expect(budget.usage).toEqual({ inputTokens: 5, outputTokens: 7, modelCalls: 1 });
  });

  test('refuses a call past maxModelCalls with a typed error', () => {
    const budget = new Budget({ maxModelCalls: 1 });
    budget.reserveModelCall();
    let caught: unknown;
    try {
      budget.reserveModelCall();
    } catch (error) {
      caught = error;
    }
    expect(BudgetExhaustedError.isInstance(caught)).toBe(true);
    expect((caught as BudgetExhaustedError).budget).toBe('modelCalls');
  });

  test('refuses a call once tokens are spent', () => {
    const budget = new Budget({ maxTokens: 10 });
    budget.reserveModelCall();
    budget.record({ inputTokens: 6, outputTokens: 4 });
    expect(() => budget.reserveModelCall()).toThrow(/token budget/);
  });
});
