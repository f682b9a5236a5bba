import type { RunUsage, Usage } from '@rlm/core';

const wholeNumber = new Intl.NumberFormat('en-US');

/** Every token of `usage`: input, output, cache reads and cache writes. */
export function totalTokens(usage: Usage): number {
  return (
    usage.inputTokens +
    usage.outputTokens +
    (usage.cacheReadTokens ?? 0) +
    (usage.cacheWriteTokens ?? 0)
  );
}

/** `2,200 tokens (900 cache reads)`; the cache part only when there were cache reads. */
export function formatTokens(usage: Usage): string {
  const reads = usage.cacheReadTokens ?? 0;
  const total = `${wholeNumber.format(totalTokens(usage))} tokens`;
  return reads > 0 ? `${total} (${wholeNumber.format(reads)} cache reads)` : total;
}

/** `$0.0090` below a dollar, `$12.35` from a dollar up. */
export function formatDollars(amount: number): string {
  return amount < 1 ? `$${amount.toFixed(4)}` : `$${amount.toFixed(2)}`;
}

/**
 * The cost of `usage`: `$0.0090`, `$0.0090 + 2 unpriced calls` when some model calls had no
 * price, or `cost unknown` when none had one. Never a guess.
 */
export function formatCost(usage: Pick<RunUsage, 'costUsd' | 'unpricedModelCalls'>): string {
  const unpriced = usage.unpricedModelCalls ?? 0;
  if (usage.costUsd === undefined) return 'cost unknown';
  if (unpriced === 0) return formatDollars(usage.costUsd);
  return `${formatDollars(usage.costUsd)} + ${unpriced} unpriced call${unpriced === 1 ? '' : 's'}`;
}

/** The totals of a run for its closing line: `2,200 tokens (900 cache reads) · $0.0090`. */
export function formatRunTotals(usage: RunUsage): string {
  return `${formatTokens(usage)} · ${formatCost(usage)}`;
}
