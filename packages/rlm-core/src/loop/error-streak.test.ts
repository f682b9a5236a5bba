import { describe, expect, test } from 'vitest';
import { NoFinalAnswerError } from '../errors/no-final-answer-error.js';
import { errorStreakAfter, tooManyErrors } from './error-streak.js';

describe('errorStreakAfter', () => {
  test('counts blocks that threw in a row, across steps; one that ran through starts again', () => {
    expect(errorStreakAfter(0, ['TypeError: a'])).toBe(1);
    expect(errorStreakAfter(1, ['TypeError: a', 'TypeError: b'])).toBe(3);
    expect(errorStreakAfter(3, ['TypeError: a', undefined])).toBe(0);
    expect(errorStreakAfter(2, [undefined, 'TypeError: a'])).toBe(1);
    expect(errorStreakAfter(2, [])).toBe(2);
  });
});

describe('tooManyErrors', () => {
  const facts = { iterations: 4, depth: 0, lastText: 'Trying once more.' };

  test('nothing under the limit, or without one', () => {
    expect(tooManyErrors(2, 3, facts, 'TypeError: x')).toBeUndefined();
    expect(tooManyErrors(50, undefined, facts, 'TypeError: x')).toBeUndefined();
  });

  test('at the limit: a NoFinalAnswerError with the reason, the last error and the partial answer', () => {
    const error = tooManyErrors(
      3,
      3,
      facts,
      'ReferenceError: x is not defined\n    at <top level> (line 1)',
    );
    expect(NoFinalAnswerError.isInstance(error)).toBe(true);
    expect(error?.message).toBe(
      "@rlm/core: the run stopped after 4 iterations: 3 code blocks in a row threw an error (limits.maxConsecutiveErrors is 3); the last: ReferenceError: x is not defined. Raise limits.maxConsecutiveErrors (--max-errors), or check the model's code",
    );
    expect(error?.partialAnswer).toBe('Trying once more.');
    expect(error?.diagnostics.reason).toMatch(/^3 code blocks in a row threw/);
    expect(error?.diagnostics.consecutiveErrors).toEqual({
      count: 3,
      lastError: 'ReferenceError: x is not defined',
    });
    expect(tooManyErrors(3, 3, { ...facts, lastText: '' }, 'E')?.partialAnswer).toBeUndefined();
  });
});
