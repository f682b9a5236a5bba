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
 * `total` plus one model call's `usage` and its cost (the usage event's `costUsd`); a call without
 * a cost (an unpriced model) leaves the total's cost as it was.
 */
export function addModelCall(total: TraceUsage, usage: Usage, costUsd?: number): TraceUsage {
  const cost =
    typeof costUsd === 'number' && Number.isFinite(costUsd)
      ? (total.costUsd ?? 0) + costUsd
      : total.costUsd;
  return {
    inputTokens: total.inputTokens + usage.inputTokens,
    outputTokens: total.outputTokens + usage.outputTokens,
    cacheReadTokens: total.cacheReadTokens + (usage.cacheReadTokens ?? 0),
    cacheWriteTokens: total.cacheWriteTokens + (usage.cacheWriteTokens ?? 0),
    modelCalls: total.modelCalls + 1,
    ...(cost === undefined ? {} : { costUsd: cost }),
  };
}

/** Every token of `usage`: input, output, cache reads and cache writes. */
export function totalTokens(usage: TraceUsage): number {
  return usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
}
