import { hasErrorName, RlmError } from './rlm-error.js';

/** Diagnostics attached to a run that ended without a final answer. */
export interface NoFinalAnswerDiagnostics {
  readonly iterations: number;
  readonly depth: number;
  /** The last assistant text, truncated. */
  readonly lastResponse: string;
  /** Why no answer: iterations ran out, budget ran out, stall, ... */
  readonly reason: string;
  /**
   * Set when the call stopped at `maxConsecutiveErrors`: how many code blocks in a row threw,
   * and the first line of the last one's error.
   */
  readonly consecutiveErrors?: { readonly count: number; readonly lastError: string };
}

/** The loop ended (iterations or budget) and even the forced final prompt gave no answer. */
export class NoFinalAnswerError extends RlmError {
  readonly diagnostics: NoFinalAnswerDiagnostics;
  /** The best partial answer available: the last assistant text, if any. */
  readonly partialAnswer: string | undefined;

  constructor(
    message: string,
    options: { diagnostics: NoFinalAnswerDiagnostics; partialAnswer?: string; cause?: unknown },
  ) {
    super(message, { cause: options.cause });
    this.name = 'NoFinalAnswerError';
    this.diagnostics = options.diagnostics;
    this.partialAnswer = options.partialAnswer;
  }

  static override isInstance(error: unknown): error is NoFinalAnswerError {
    return hasErrorName(error, 'NoFinalAnswerError');
  }
}
