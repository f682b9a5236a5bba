import { emptyRunUsage } from '@rlm/core';
import type { EvalRun } from '@rlm/eval';
import type { BatchJobId } from './parse-batch-jobs.js';
import type { BatchResult } from './run-batch-query.js';

/**
 * What a worker adds to the result line of an eval job (`eval` in the line), for the eval to
 * score it as it scores a run of its own.
 */
export interface QueuedEvalFacts {
  /** Steps of the root loop (1 for the direct baseline, 0 when nothing was sent). */
  readonly steps: number;
  /** Model calls below the root. */
  readonly subCalls: number;
  /** The run's trace in the worker's store. */
  readonly runId?: string;
  /** Characters of the context as the model got it. */
  readonly contextChars?: number;
  /** The direct baseline's context did not fit the window: nothing was sent. */
  readonly didNotFit?: { readonly estimatedTokens: number; readonly windowTokens: number };
  /** Flags of the job's variant whose limit the worker lowered to its own. */
  readonly bounded?: readonly string[];
}

/** A result line with the facts of an eval job. */
export type QueuedEvalResult = BatchResult & { readonly eval: QueuedEvalFacts };

/** A run of an item as the eval scores it, from its result line and the run's facts. */
export function evalRunOf(
  result: BatchResult,
  facts: Pick<QueuedEvalFacts, 'steps' | 'subCalls' | 'runId'>,
): EvalRun {
  const common = {
    usage: result.usage,
    durationMs: result.durationMs,
    steps: facts.steps,
    subCalls: facts.subCalls,
    ...(facts.runId === undefined ? {} : { runId: facts.runId }),
  };
  return 'answer' in result
    ? { kind: 'answered', answer: result.answer, ...common }
    : { kind: 'failed', error: result.error, ...common };
}

/** The result line of a run of the direct baseline. */
export function baselineResultOf(id: BatchJobId, run: EvalRun): BatchResult {
  if (run.kind === 'did-not-fit') {
    return { id, answer: null, usage: emptyRunUsage(), durationMs: 0 };
  }
  const { usage, durationMs } = run;
  return run.kind === 'answered'
    ? {
        id,
        answer: run.answer,
        usage,
        ...(usage.costUsd === undefined ? {} : { costUsd: usage.costUsd }),
        durationMs,
      }
    : { id, error: run.error, usage, durationMs };
}

/** The facts of a run of the direct baseline, for its queued result line. */
export function baselineFactsOf(run: EvalRun): QueuedEvalFacts {
  return run.kind === 'did-not-fit'
    ? {
        steps: 0,
        subCalls: 0,
        didNotFit: { estimatedTokens: run.estimatedTokens, windowTokens: run.windowTokens },
      }
    : { steps: run.steps, subCalls: run.subCalls };
}

/**
 * A queued eval job's run, read from the result line a worker returned; a line without the
 * facts (a worker of an older rlm, which ran the job with its own flags) is a failed run that
 * says so.
 */
export function readQueuedEvalResult(result: BatchResult): {
  readonly run: EvalRun;
  readonly contextChars: number | undefined;
  readonly bounded: readonly string[];
} {
  const facts = readFacts((result as Partial<QueuedEvalResult>).eval);
  if (facts === undefined) {
    const error =
      'error' in result
        ? result.error
        : {
            name: 'QueuedJobError',
            message:
              'the worker that ran it did not run it as an eval job (an rlm worker older than this eval, which used its own flags); run the same rlm version for rlm eval --queue and rlm worker',
          };
    return {
      run: {
        kind: 'failed',
        error,
        usage: result.usage,
        durationMs: result.durationMs,
        steps: 0,
        subCalls: 0,
      },
      contextChars: undefined,
      bounded: [],
    };
  }
  const run: EvalRun =
    facts.didNotFit === undefined
      ? evalRunOf(result, facts)
      : { kind: 'did-not-fit', ...facts.didNotFit };
  return { run, contextChars: facts.contextChars, bounded: facts.bounded ?? [] };
}

/** The facts as a worker wrote them, checked; `undefined` when absent or malformed. */
function readFacts(value: unknown): QueuedEvalFacts | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const facts = value as Record<string, unknown>;
  const count = (field: unknown) =>
    typeof field === 'number' && Number.isSafeInteger(field) && field >= 0;
  if (!count(facts.steps) || !count(facts.subCalls)) return undefined;
  const fit = facts.didNotFit as Record<string, unknown> | undefined;
  return {
    steps: facts.steps as number,
    subCalls: facts.subCalls as number,
    ...(typeof facts.runId === 'string' ? { runId: facts.runId } : {}),
    ...(count(facts.contextChars) ? { contextChars: facts.contextChars as number } : {}),
    ...(typeof fit === 'object' &&
    fit !== null &&
    count(fit.estimatedTokens) &&
    count(fit.windowTokens)
      ? {
          didNotFit: {
            estimatedTokens: fit.estimatedTokens as number,
            windowTokens: fit.windowTokens as number,
          },
        }
      : {}),
    ...(Array.isArray(facts.bounded)
      ? { bounded: facts.bounded.filter((flag): flag is string => typeof flag === 'string') }
      : {}),
  };
}
