import { type CallUsage, emptyRunUsage, ModelCallError, type RunUsage } from '@rlm/core';
import { describeRunError } from './describe-run-error.js';
import type { RunTallySnapshot } from '../rlm/run-tally.js';

/** What `--json` prints for a query that failed (or a command line that could not run). */
export interface JsonFailureReport {
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
  /** Root iterations started. */
  readonly iterations: number;
  /** Deepest call depth reached. */
  readonly depthReached: number;
  /** Tokens, model calls and cost spent before the failure (all 0 when no model was called). */
  readonly usage: RunUsage;
  /** The same per call of the tree (root, `sub_rlm` children, `llm_query` calls); may be empty. */
  readonly callUsage: readonly CallUsage[];
  /** Wall time until the failure, in milliseconds. */
  readonly durationMs: number;
}

const nothingRan: RunTallySnapshot = {
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
  options: { readonly message?: string; readonly spent?: RunTallySnapshot } = {},
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
