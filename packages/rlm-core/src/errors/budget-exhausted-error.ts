import { hasErrorName, RlmError } from './rlm-error.js';

/** Which budget ran out. */
export type BudgetKind = 'modelCalls' | 'tokens' | 'cost' | 'wallTime';

/** A shared budget ran out before the run could produce an answer. */
export class BudgetExhaustedError extends RlmError {
  readonly budget: BudgetKind;
  /** The best partial answer available, if any. */
  readonly partialAnswer: string | undefined;

  constructor(
    message: string,
    options: { budget: BudgetKind; partialAnswer?: string; cause?: unknown },
  ) {
    super(message, { cause: options.cause });
    this.name = 'BudgetExhaustedError';
    this.budget = options.budget;
    this.partialAnswer = options.partialAnswer;
  }

  static override isInstance(error: unknown): error is BudgetExhaustedError {
    return hasErrorName(error, 'BudgetExhaustedError');
  }
}
