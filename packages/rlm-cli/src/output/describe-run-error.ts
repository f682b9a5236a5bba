import {
  AbortedError,
  BudgetExhaustedError,
  ModelCallError,
  NoFinalAnswerError,
  SandboxError,
  formatErrorLine,
} from '@rlm/core';
import { modelSettingFlags, withFlags } from './model-setting-flags.js';

/** How a failed query is reported. */
export interface RunFailure {
  /** One line, without the `rlm: ` prefix: what happened and what to do. */
  readonly message: string;
  /** 130 for an abort (Ctrl-C), 1 for everything else. */
  readonly exitCode: 1 | 130;
  /** The best partial answer, for `NoFinalAnswerError` and `BudgetExhaustedError`. */
  readonly partialAnswer: string | undefined;
}

const budgetNames = {
  modelCalls: { name: 'model-call', flag: '--max-model-calls' },
  tokens: { name: 'token', flag: '--max-tokens' },
  cost: { name: 'cost', flag: '--max-cost' },
  wallTime: { name: 'wall-time', flag: '--max-wall-time' },
} as const;

/**
 * Turns the error a query rejected with into one user-facing line, an exit code and the partial
 * answer if any. Package prefixes (`@rlm/core: `) are dropped; the line never spans lines.
 */
export function describeRunError(error: unknown): RunFailure {
  // A checkpoint that cannot be resumed says to start again without resuming: here, a flag.
  const detail = formatErrorLine(
    formatErrorLine(error, { maxLength: Number.POSITIVE_INFINITY }).replace(
      /start the run again without resuming it$/,
      'run it again without --resume to start over',
    ),
  );
  if (AbortedError.isInstance(error)) {
    return { message: 'aborted', exitCode: 130, partialAnswer: undefined };
  }
  if (NoFinalAnswerError.isInstance(error)) {
    const { iterations, reason, consecutiveErrors } = error.diagnostics;
    if (consecutiveErrors) {
      return {
        message: `the run stopped after ${consecutiveErrors.count} code blocks in a row threw an error (the last: ${formatErrorLine(consecutiveErrors.lastError)}); raise --max-errors or ask a narrower question`,
        exitCode: 1,
        partialAnswer: error.partialAnswer,
      };
    }
    return {
      message: `the model gave no final answer after ${iterations} iterations (${formatErrorLine(reason)}); raise --max-iterations or ask a narrower question`,
      exitCode: 1,
      partialAnswer: error.partialAnswer,
    };
  }
  if (BudgetExhaustedError.isInstance(error)) {
    const { name, flag } = budgetNames[error.budget];
    return {
      message: `the run spent its ${name} budget before answering (${detail.replace(/;?\s*raise budget\.\w+$/, '')}); raise ${flag}`,
      exitCode: 1,
      partialAnswer: error.partialAnswer,
    };
  }
  if (ModelCallError.isInstance(error)) {
    // The adapter names its settings (`timeoutMs`, `the baseURL setting`); here they are flags
    // (the CLI's models name them already: see `nameModelFlags`).
    return {
      message: `the model call failed: ${withFlags(detail, error.settings ?? [], modelSettingFlags)}`,
      exitCode: 1,
      partialAnswer: undefined,
    };
  }
  if (SandboxError.isInstance(error)) {
    return { message: `the sandbox failed: ${detail}`, exitCode: 1, partialAnswer: undefined };
  }
  return { message: detail, exitCode: 1, partialAnswer: undefined };
}
