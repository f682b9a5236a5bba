import type { Usage } from '@rlm/core';
import type { TraceUsage } from './trace-document.js';

/** Usage with every count at zero and no cost. */
export const emptyUsage: TraceUsage = {
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  modelCalls: 0,
};

/**
 * `total` plus one model call's `usage`. A cost is read from a numeric `costUsd` on the usage
 * when the adapter reports one; otherwise the total's cost stays as it was.
 */
export function addModelCall(total: TraceUsage, usage: Usage): TraceUsage {
  const cost = (usage as { readonly costUsd?: unknown }).costUsd;
  const costUsd =
    typeof cost === 'number' && Number.isFinite(cost) ? (total.costUsd ?? 0) + cost : total.costUsd;
  return {
    inputTokens: total.inputTokens + usage.inputTokens,
    outputTokens: total.outputTokens + usage.outputTokens,
    cacheReadTokens: total.cacheReadTokens + (usage.cacheReadTokens ?? 0),
    cacheWriteTokens: total.cacheWriteTokens + (usage.cacheWriteTokens ?? 0),
    modelCalls: total.modelCalls + 1,
    ...(costUsd === undefined ? {} : { costUsd }),
  };
}

/** Every token of `usage`: input, output, cache reads and cache writes. */
export function totalTokens(usage: TraceUsage): number {
  return usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
}
