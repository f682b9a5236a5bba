import type { RunUsage } from '@rlm/core';
import type { EvalItemId } from '../eval-item.js';
import type { JudgeSpend, ScoreFailure } from '../scorers/scorer.js';

/**
 * One line of an eval's results: one item answered (or not) by one variant, and its score.
 * Written as JSON, one object a line.
 */
export interface EvalResult {
  /** The item's id. */
  readonly id: EvalItemId;
  /** The variant that ran it: a `--variant` name, `direct` for the baseline. */
  readonly variant: string;
  /** The question. */
  readonly query: string;
  /** The answer; absent when the run failed or the context did not fit. */
  readonly answer?: unknown;
  /** The item's expected value. */
  readonly expected: unknown;
  /**
   * In [0, 1]. 0 for a run that failed and for a context that did not fit the baseline's
   * window (no answer is a wrong answer); `null` when the scorer failed on this item
   * (`scoreFailure` says why): such items are left out of the mean.
   */
  readonly score: number | null;
  /** The scorer's name (`exact`, ..., `judge`, or the module's path). */
  readonly scorer: string;
  /** The scorer's reason, when it gave one. */
  readonly note?: string;
  /** Why `score` is `null`. */
  readonly scoreFailure?: ScoreFailure;
  /** The run's error, when it failed. */
  readonly error?: { readonly name: string; readonly message: string };
  /** Set for the direct baseline when the context did not fit the model's window (not sent). */
  readonly didNotFit?: { readonly estimatedTokens: number; readonly windowTokens: number };
  /** Tokens, model calls and cost of the run (the judge's are apart, in `judge`). */
  readonly usage: RunUsage;
  /** `usage.costUsd`: US dollars; absent when no model call had a price. */
  readonly costUsd?: number;
  /** Every token of the run: input, output, cache reads and writes. */
  readonly tokens: number;
  /** Wall time of the run, in milliseconds (0 when nothing was sent). */
  readonly durationMs: number;
  /** Steps of the root loop (1 for the direct baseline). */
  readonly steps: number;
  /** Model calls made below the root: `sub_rlm` children and `llm_query` calls. */
  readonly subCalls: number;
  /** Characters of the item's context as the model gets it (JSON for structured contexts). */
  readonly contextChars?: number;
  /** The run's trace in the store (`rlm trace <runId>`), when one was kept. */
  readonly runId?: string;
  /** What the judge spent on this item, counted apart from the run. */
  readonly judge?: JudgeSpend;
}

/** How one variant's run of one item went, before it is scored. */
export type EvalRun =
  | (RunFacts & { readonly kind: 'answered'; readonly answer: unknown })
  | (RunFacts & {
      readonly kind: 'failed';
      readonly error: { readonly name: string; readonly message: string };
    })
  | {
      readonly kind: 'did-not-fit';
      readonly estimatedTokens: number;
      readonly windowTokens: number;
    };

/** What every run that was sent reports. */
export interface RunFacts {
  readonly usage: RunUsage;
  readonly durationMs: number;
  readonly steps: number;
  readonly subCalls: number;
  readonly runId?: string;
}

/** The key of an item and variant pair: one result line per pair counts. */
export function evalResultKey(id: EvalItemId, variant: string): string {
  return `${variant}\u0000${JSON.stringify(id)}`;
}

/** Every token of `usage`. */
export function totalTokens(usage: RunUsage): number {
  return usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
}
