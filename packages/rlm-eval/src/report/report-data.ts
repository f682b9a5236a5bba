import type { EvalResult } from '../results/eval-result.js';
import type { EvalSummary } from '../results/summarize-eval.js';

/** What the report's charts draw, computed on the host so that it can be tested as data. */
export interface ReportChartData {
  readonly confidence: number;
  /** Score vs cost: one point per variant with a price, with its interval. */
  readonly variants: readonly {
    readonly variant: string;
    readonly meanScore: number;
    readonly low?: number;
    readonly high?: number;
    readonly costPerItemUsd?: number;
  }[];
  /** Score by context length: the mean score of each variant at each length. */
  readonly byLength: readonly {
    readonly variant: string;
    /** Characters of context: the length itself, or a power of two for binned lengths. */
    readonly contextChars: number;
    readonly meanScore: number;
    readonly items: number;
  }[];
  /** Whether `byLength` bins lengths into powers of two (more than 12 distinct lengths). */
  readonly binnedLengths: boolean;
  /** Time distributions: every sent run's wall time. */
  readonly durations: readonly { readonly variant: string; readonly seconds: number }[];
}

/** Distinct lengths drawn as they are; more are binned into powers of two. */
const maxDistinctLengths = 12;

/** The data of the report's charts, from the results and their summary. */
export function reportChartData(
  results: readonly EvalResult[],
  summary: EvalSummary,
): ReportChartData {
  const variants = summary.variants.flatMap((variant) =>
    variant.meanScore === undefined
      ? []
      : [
          {
            variant: variant.variant,
            meanScore: variant.meanScore,
            ...(variant.interval ? { low: variant.interval.low, high: variant.interval.high } : {}),
            ...(variant.costPerItemUsd === undefined
              ? {}
              : { costPerItemUsd: variant.costPerItemUsd }),
          },
        ],
  );
  const measured = results.filter(
    (result) =>
      result.score !== null && result.contextChars !== undefined && result.contextChars > 0,
  );
  const binnedLengths =
    new Set(measured.map((result) => result.contextChars)).size > maxDistinctLengths;
  const groups = new Map<string, { variant: string; contextChars: number; scores: number[] }>();
  for (const result of measured) {
    const chars = binnedLengths
      ? 2 ** Math.round(Math.log2(result.contextChars!))
      : result.contextChars!;
    const key = `${result.variant}\u0000${chars}`;
    const group = groups.get(key) ?? { variant: result.variant, contextChars: chars, scores: [] };
    group.scores.push(result.score!);
    groups.set(key, group);
  }
  const byLength = [...groups.values()]
    .map((group) => ({
      variant: group.variant,
      contextChars: group.contextChars,
      meanScore: group.scores.reduce((sum, score) => sum + score, 0) / group.scores.length,
      items: group.scores.length,
    }))
    .sort((a, b) => a.variant.localeCompare(b.variant) || a.contextChars - b.contextChars);
  const durations = results
    .filter((result) => result.didNotFit === undefined)
    .map((result) => ({ variant: result.variant, seconds: result.durationMs / 1000 }));
  return { confidence: summary.confidence, variants, byLength, binnedLengths, durations };
}

/** An item the variants scored differently. */
export interface Disagreement {
  readonly id: EvalResult['id'];
  readonly query: string;
  readonly expected: unknown;
  /** Each variant's line for the item, by variant name. */
  readonly results: ReadonlyMap<string, EvalResult>;
  /** Highest score minus lowest. */
  readonly spread: number;
}

/**
 * The items where at least two variants have a score and the scores differ, widest spread
 * first (then in the order the items first appear).
 */
export function findDisagreements(results: readonly EvalResult[]): Disagreement[] {
  const byItem = new Map<string, Map<string, EvalResult>>();
  for (const result of results) {
    const key = JSON.stringify(result.id);
    const lines = byItem.get(key) ?? new Map<string, EvalResult>();
    lines.set(result.variant, result);
    byItem.set(key, lines);
  }
  const disagreements: Disagreement[] = [];
  for (const lines of byItem.values()) {
    const scores = [...lines.values()].flatMap((line) => (line.score === null ? [] : [line.score]));
    if (scores.length < 2) continue;
    const spread = Math.max(...scores) - Math.min(...scores);
    if (spread === 0) continue;
    const first = lines.values().next().value!;
    disagreements.push({
      id: first.id,
      query: first.query,
      expected: first.expected,
      results: lines,
      spread,
    });
  }
  // A stable sort keeps the first-seen order among equal spreads.
  return disagreements.sort((a, b) => b.spread - a.spread);
}
