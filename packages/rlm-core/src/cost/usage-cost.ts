import type { Usage } from '../language-model.js';
import type { ModelPrice } from '../budget-settings.js';

/**
 * What `usage` costs at `price`, in US dollars. `usage.inputTokens` is the uncached input;
 * cache reads and writes are billed at their own prices (absent counts are 0).
 */
export function usageCostUsd(usage: Usage, price: ModelPrice): number {
  return (
    (usage.inputTokens * price.inputPerMillionUsd +
      usage.outputTokens * price.outputPerMillionUsd +
      (usage.cacheReadTokens ?? 0) * price.cacheReadPerMillionUsd +
      (usage.cacheWriteTokens ?? 0) * price.cacheWritePerMillionUsd) /
    1_000_000
  );
}
