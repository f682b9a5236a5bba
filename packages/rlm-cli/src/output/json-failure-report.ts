import { type CallUsage, emptyRunUsage, ModelCallError, type RunUsage } from '@rlm/core';
import { describeRunError } from './describe-run-error.js';

/** What a run has done so far, or had done when it ended; all 0 when nothing ran. */
export interface RunSpent {
  /** Root iterations started. */
  readonly iterations: number;
  /** Deepest call depth reached (0 = only the root ran). */
  readonly depthReached: number;
  /**
   * Tokens and cost of every model call that returned, at every depth; `modelCalls` counts the
   * calls started (as the usage events say).
   */
  readonly usage: RunUsage;
  /** The same per call of the tree (root, `sub_rlm` children, `llm_query` calls); may be empty. */
  readonly callUsage: readonly CallUsage[];
  /** Milliseconds since the run started (until it ended, in a failure report). */
  readonly durationMs: number;
}

/** What `--json` prints for a query that failed (or a command line that could not run). */
export interface JsonFailureReport extends RunSpent {
  readonly error: {
    /** The error class's name: `ModelCallError`, `NoFinalAnswerError`, `UsageError`, ... */
    readonly name: string;
    /** The one line also printed on stderr (without `rlm: `). */
    readonly message: string;
    /** For a `ModelCallError`: why the call failed (`rate-limited`, `authentication`, ...). */
    readonly reason?: string;
  };
  /** The best partial answer, when the run ended without a final one. */
  readonly partialAnswer?: string;
}

const nothingRan: RunSpent = {
  iterations: 0,
  depthReached: 0,
  usage: emptyRunUsage(),
  callUsage: [],
  durationMs: 0,
};

/**
 * The `--json` report of a failure: `message` is the line {@link describeRunError} gives (or
 * the error's own message for usage and context errors, passed as `message`); `spent` is what
 * the run had done, nothing when omitted.
 */
export function jsonFailureReport(
  error: unknown,
  options: { readonly message?: string; readonly spent?: RunSpent } = {},
): JsonFailureReport {
  const described = describeRunError(error);
  const name = error instanceof Error ? error.name : 'Error';
  return {
    error: {
      name,
      message: options.message ?? described.message,
      ...(ModelCallError.isInstance(error) ? { reason: error.reason } : {}),
    },
    ...(described.partialAnswer === undefined ? {} : { partialAnswer: described.partialAnswer }),
    ...(options.spent ?? nothingRan),
  };
}

/** One line of `--json` output for a failure, newline included. */
export function formatJsonFailure(report: JsonFailureReport): string {
  return `${JSON.stringify(report)}\n`;
}
