import { emptyRunUsage } from '@rlm/core';
import type { EvalItem } from '../eval-item.js';
import type { ScoreOutcome, Scorer } from '../scorers/scorer.js';
import { type EvalResult, type EvalRun, totalTokens } from './eval-result.js';

/** What {@link scoreRun} needs besides the item and its run. */
export interface ScoreRunOptions {
  /** The variant that ran the item. */
  readonly variant: string;
  readonly scorer: Scorer;
  /** Characters of the item's context, for "score by context length". */
  readonly contextChars?: number | undefined;
  readonly signal?: AbortSignal | undefined;
}

/**
 * Scores one variant's run of one item and builds its result line. Only an answer is scored:
 * a failed run and a context that did not fit score 0 without asking the scorer. Never
 * rejects: a scorer that throws marks the item (`score: null`, `scoreFailure`).
 */
export async function scoreRun(
  item: EvalItem,
  run: EvalRun,
  options: ScoreRunOptions,
): Promise<EvalResult> {
  const base = {
    id: item.id,
    variant: options.variant,
    query: item.query,
    ...(run.kind === 'answered' ? { answer: run.answer } : {}),
    expected: item.expected,
  };
  const facts =
    run.kind === 'did-not-fit'
      ? { usage: emptyRunUsage(), durationMs: 0, steps: 0, subCalls: 0 }
      : run;
  const usage = facts.usage;
  const measured = {
    usage,
    ...(usage.costUsd === undefined ? {} : { costUsd: usage.costUsd }),
    tokens: totalTokens(usage),
    durationMs: facts.durationMs,
    steps: facts.steps,
    subCalls: facts.subCalls,
    ...(options.contextChars === undefined ? {} : { contextChars: options.contextChars }),
    ...(run.kind !== 'did-not-fit' && run.runId !== undefined ? { runId: run.runId } : {}),
  };
  if (run.kind === 'failed') {
    return { ...base, score: 0, scorer: options.scorer.name, error: run.error, ...measured };
  }
  if (run.kind === 'did-not-fit') {
    return {
      ...base,
      score: 0,
      scorer: options.scorer.name,
      didNotFit: { estimatedTokens: run.estimatedTokens, windowTokens: run.windowTokens },
      ...measured,
    };
  }
  let outcome: ScoreOutcome;
  try {
    outcome = await options.scorer.score(
      { id: item.id, query: item.query, answer: run.answer, expected: item.expected },
      options.signal === undefined ? {} : { signal: options.signal },
    );
  } catch (error) {
    outcome = {
      score: null,
      failure: {
        kind: 'threw',
        message: `the scorer failed: ${error instanceof Error ? error.message : String(error)}`,
      },
    };
  }
  return {
    ...base,
    score: outcome.score,
    scorer: options.scorer.name,
    ...(outcome.note === undefined ? {} : { note: outcome.note }),
    ...(outcome.failure === undefined ? {} : { scoreFailure: outcome.failure }),
    ...measured,
    ...(outcome.judge === undefined ? {} : { judge: outcome.judge }),
  };
}
