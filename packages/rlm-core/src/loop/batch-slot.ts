import { errorMessage } from '../error-message.js';

/**
 * What a batch call (`llm_query_batched`, `sub_rlm_batched`) puts in the slot of an item that
 * failed, in place of its answer: plain data, so `JSON.stringify(answers)` shows it.
 */
export interface FailedSlot {
  /** The error's name: `ModelCallError`, `BudgetExhaustedError`, `NoFinalAnswerError`, `Error`. */
  readonly error: string;
  /** The error's message. */
  readonly message: string;
}

/**
 * PURE: the answers of a batch in the order of its items: each item's answer, or a
 * {@link FailedSlot} naming why it has none. One failure never costs the others their answers.
 */
export function batchSlots<T>(outcomes: readonly PromiseSettledResult<T>[]): (T | FailedSlot)[] {
  return outcomes.map((outcome) =>
    outcome.status === 'fulfilled' ? outcome.value : failedSlot(outcome.reason),
  );
}

function failedSlot(reason: unknown): FailedSlot {
  const name = reason instanceof Error && reason.name ? reason.name : 'Error';
  return { error: name, message: errorMessage(reason) || `${name} without a message` };
}
