import { NoFinalAnswerError } from '../errors/no-final-answer-error.js';
import type { NoAnswerFacts } from './final-answer.js';

/**
 * PURE: code blocks in a row that threw, after a step whose blocks ended with `errors` (each
 * block's error, `undefined` for one that ran through, in order). A block that runs through
 * starts the count again; a step without code leaves it as it is.
 */
export function errorStreakAfter(streak: number, errors: readonly (string | undefined)[]): number {
  let count = streak;
  for (const error of errors) count = error === undefined ? 0 : count + 1;
  return count;
}

/**
 * PURE: the error that ends a call whose code blocks threw `limit` times in a row
 * (`maxConsecutiveErrors`), carrying the call's last text as its partial answer; `undefined`
 * while the streak is under the limit or there is none.
 */
export function tooManyErrors(
  streak: number,
  limit: number | undefined,
  facts: NoAnswerFacts,
  lastError: string,
): NoFinalAnswerError | undefined {
  if (limit === undefined || streak < limit) return undefined;
  const firstLine = lastError.split('\n')[0]!.slice(0, 300);
  const reason = `${streak} code blocks in a row threw an error (limits.maxConsecutiveErrors is ${limit}); the last: ${firstLine}`;
  return new NoFinalAnswerError(
    `@rlm/core: the run stopped after ${facts.iterations} iterations: ${reason}. Raise limits.maxConsecutiveErrors (--max-errors), or check the model's code`,
    {
      diagnostics: {
        iterations: facts.iterations,
        depth: facts.depth,
        lastResponse: facts.lastText.slice(0, 2_000),
        reason,
        consecutiveErrors: { count: streak, lastError: firstLine },
      },
      ...(facts.lastText ? { partialAnswer: facts.lastText } : {}),
    },
  );
}
