import { percentile } from '../statistics/percentile.js';
import { type ScoreInterval, scoreInterval } from '../statistics/score-interval.js';
import type { EvalResult } from './eval-result.js';

/** One variant's results, summed up. */
export interface VariantSummary {
  readonly variant: string;
  /** Result lines (items run, failed or that did not fit). */
  readonly items: number;
  /** Items with a score (the scorer did not fail on them). */
  readonly scored: number;
  /** Items whose scorer failed (`score: null`): left out of the mean. */
  readonly unscored: number;
  /** Runs that failed (scored 0). */
  readonly failedRuns: number;
  /** Baseline items whose context did not fit the window (scored 0, nothing sent). */
  readonly didNotFit: number;
  /** Mean of the scores; `undefined` when none was scored. */
  readonly meanScore?: number;
  /** Confidence interval of the mean (see {@link ScoreInterval} for the method). */
  readonly interval?: ScoreInterval;
  /** US dollars spent by the runs; absent when no run had a price. */
  readonly costUsd?: number;
  /** `costUsd` over the items that were sent (did-not-fit items cost nothing and are left out). */
  readonly costPerItemUsd?: number;
  /** Items whose cost is unknown (a model without a price). */
  readonly unpricedItems: number;
  /** US dollars the judge spent on this variant's answers, apart from `costUsd`. */
  readonly judgeCostUsd?: number;
  /** Tokens of every run. */
  readonly tokens: number;
  /** Median and 95th percentile of the runs' wall time, in milliseconds (sent items only). */
  readonly p50DurationMs?: number;
  readonly p95DurationMs?: number;
  /** Means over the items that were sent. */
  readonly meanSteps?: number;
  readonly meanSubCalls?: number;
}

/** An eval's results, per variant, in the order the variants first appear. */
export interface EvalSummary {
  readonly confidence: number;
  readonly variants: readonly VariantSummary[];
}

/**
 * Sums up result lines per variant: mean score with its confidence interval (at `confidence`,
 * default 0.95), cost, cost per item, judge cost, tokens, p50 and p95 time, mean steps and
 * sub-calls. Pass one line per item and variant (see `readEvalResults`).
 */
export function summarizeEval(
  results: readonly EvalResult[],
  options: { readonly confidence?: number; readonly variants?: readonly string[] } = {},
): EvalSummary {
  const confidence = options.confidence ?? 0.95;
  const byVariant = new Map<string, EvalResult[]>();
  for (const variant of options.variants ?? []) byVariant.set(variant, []);
  for (const result of results) {
    const list = byVariant.get(result.variant);
    if (list) list.push(result);
    else byVariant.set(result.variant, [result]);
  }
  return {
    confidence,
    variants: [...byVariant].map(([variant, lines]) =>
      summarizeVariant(variant, lines, confidence),
    ),
  };
}

function summarizeVariant(
  variant: string,
  lines: readonly EvalResult[],
  confidence: number,
): VariantSummary {
  const scores = lines.flatMap((line) => (line.score === null ? [] : [line.score]));
  const sent = lines.filter((line) => line.didNotFit === undefined);
  const priced = sent.filter((line) => line.costUsd !== undefined);
  const costUsd = priced.length === 0 ? undefined : sum(priced.map((line) => line.costUsd!));
  const judged = lines.filter((line) => line.judge?.costUsd !== undefined);
  const durations = sent.map((line) => line.durationMs);
  const interval = scoreInterval(scores, confidence);
  const p50 = percentile(durations, 0.5);
  const p95 = percentile(durations, 0.95);
  return {
    variant,
    items: lines.length,
    scored: scores.length,
    unscored: lines.length - scores.length,
    failedRuns: lines.filter((line) => line.error !== undefined).length,
    didNotFit: lines.length - sent.length,
    ...(scores.length === 0 ? {} : { meanScore: sum(scores) / scores.length }),
    ...(interval === undefined ? {} : { interval }),
    ...(costUsd === undefined ? {} : { costUsd, costPerItemUsd: costUsd / sent.length }),
    unpricedItems: sent.length - priced.length,
    ...(judged.length === 0
      ? {}
      : { judgeCostUsd: sum(judged.map((line) => line.judge!.costUsd!)) }),
    tokens: sum(lines.map((line) => line.tokens)),
    ...(p50 === undefined ? {} : { p50DurationMs: p50 }),
    ...(p95 === undefined ? {} : { p95DurationMs: p95 }),
    ...(sent.length === 0
      ? {}
      : {
          meanSteps: sum(sent.map((line) => line.steps)) / sent.length,
          meanSubCalls: sum(sent.map((line) => line.subCalls)) / sent.length,
        }),
  };
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
