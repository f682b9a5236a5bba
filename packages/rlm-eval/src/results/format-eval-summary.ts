import type { EvalSummary, VariantSummary } from './summarize-eval.js';

/**
 * The summary as a plain-text table, one row per variant: items, mean score with its interval,
 * cost per item, p50 and p95 time, mean steps and sub-calls; then one line per variant for what
 * needs saying (failed runs, unscored items, contexts that did not fit, the judge's cost), and
 * the interval's method.
 */
export function formatEvalSummary(summary: EvalSummary): string {
  const header = [
    'variant',
    'items',
    'score',
    `${percent(summary.confidence)} CI`,
    'cost/item',
    'p50',
    'p95',
    'steps',
    'sub-calls',
  ];
  const rows = summary.variants.map((variant) => [
    variant.variant,
    String(variant.items),
    variant.meanScore === undefined ? '-' : variant.meanScore.toFixed(3),
    variant.interval === undefined
      ? '-'
      : `${variant.interval.low.toFixed(3)}–${variant.interval.high.toFixed(3)}`,
    variant.costPerItemUsd === undefined ? '?' : formatUsd(variant.costPerItemUsd),
    formatMs(variant.p50DurationMs),
    formatMs(variant.p95DurationMs),
    variant.meanSteps === undefined ? '-' : variant.meanSteps.toFixed(1),
    variant.meanSubCalls === undefined ? '-' : variant.meanSubCalls.toFixed(1),
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]!.length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!),
      )
      .join('  ')
      .trimEnd();
  const notes = summary.variants.flatMap(describeNotes);
  const methods = new Set(summary.variants.flatMap((variant) => variant.interval?.method ?? []));
  const method =
    methods.size === 0
      ? []
      : [
          `CI: ${[...methods]
            .map((name) =>
              name === 'wilson'
                ? 'Wilson score interval (scores all 0 or 1)'
                : "Student's t on the mean (fractional scores)",
            )
            .join('; ')}`,
        ];
  return `${[line(header), ...rows.map(line), ...notes, ...method].join('\n')}\n`;
}

function describeNotes(variant: VariantSummary): string[] {
  const parts = [
    variant.failedRuns > 0 ? `${variant.failedRuns} failed (scored 0)` : '',
    variant.didNotFit > 0 ? `${variant.didNotFit} did not fit the window (scored 0)` : '',
    variant.unscored > 0
      ? `${variant.unscored} not scored (the scorer failed; left out of the mean)`
      : '',
    variant.unpricedItems > 0 ? `${variant.unpricedItems} without a price (cost unknown)` : '',
    variant.judgeCostUsd !== undefined
      ? `judge cost ${formatUsd(variant.judgeCostUsd)} (apart)`
      : '',
    variant.costUsd !== undefined ? `total ${formatUsd(variant.costUsd)}` : '',
  ].filter((part) => part !== '');
  return parts.length === 0 ? [] : [`${variant.variant}: ${parts.join(' · ')}`];
}

function percent(confidence: number): string {
  return `${Math.round(confidence * 1000) / 10}%`;
}

/** Dollars with 4 significant digits below $1 (`$0.001234`), cents above. */
export function formatUsd(usd: number): string {
  if (usd === 0) return '$0';
  return usd >= 1 ? `$${usd.toFixed(2)}` : `$${Number(usd.toPrecision(4))}`;
}

function formatMs(ms: number | undefined): string {
  if (ms === undefined) return '-';
  return ms >= 10_000
    ? `${(ms / 1000).toFixed(0)} s`
    : ms >= 1000
      ? `${(ms / 1000).toFixed(1)} s`
      : `${Math.round(ms)} ms`;
}
