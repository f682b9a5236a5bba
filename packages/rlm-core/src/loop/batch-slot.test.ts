import { describe, expect, test } from 'vitest';
import { BudgetExhaustedError } from '../errors/budget-exhausted-error.js';
import { batchSlots } from './batch-slot.js';

describe('batchSlots', () => {
  test('answers stay in order; a failure takes its own slot as { error, message }', async () => {
    const outcomes = await Promise.allSettled([
      Promise.resolve('first'),
      Promise.reject(new BudgetExhaustedError('@rlm/core: spent', { budget: 'tokens' })),
      Promise.resolve('third'),
      Promise.reject('a bare string'),
      Promise.reject(new Error('')),
    ]);
    const slots = batchSlots(outcomes);
    expect(slots).toEqual([
      'first',
      { error: 'BudgetExhaustedError', message: '@rlm/core: spent' },
      'third',
      { error: 'Error', message: 'a bare string' },
      { error: 'Error', message: 'Error without a message' },
    ]);
    expect(JSON.stringify(slots[1])).toBe(
      '{"error":"BudgetExhaustedError","message":"@rlm/core: spent"}',
    );
  });
});
