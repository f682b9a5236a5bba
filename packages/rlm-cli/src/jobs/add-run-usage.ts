import type { RunUsage } from '@rlm/core';

/** The sum of two runs' usage; the cost is unknown only when it is unknown in both. */
export function addRunUsage(total: RunUsage, more: RunUsage): RunUsage {
  const costUsd =
    total.costUsd === undefined && more.costUsd === undefined
      ? undefined
      : (total.costUsd ?? 0) + (more.costUsd ?? 0);
  const unpriced = (total.unpricedModelCalls ?? 0) + (more.unpricedModelCalls ?? 0);
  return {
    inputTokens: total.inputTokens + more.inputTokens,
    outputTokens: total.outputTokens + more.outputTokens,
    cacheReadTokens: total.cacheReadTokens + more.cacheReadTokens,
    cacheWriteTokens: total.cacheWriteTokens + more.cacheWriteTokens,
    modelCalls: total.modelCalls + more.modelCalls,
    ...(costUsd === undefined ? {} : { costUsd }),
    ...(unpriced > 0 ? { unpricedModelCalls: unpriced } : {}),
  };
}
