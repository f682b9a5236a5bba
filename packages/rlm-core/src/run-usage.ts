import type { Usage } from './language-model.js';

/** Usage of a whole run (children included), or of one call. */
export interface RunUsage extends Usage {
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  readonly modelCalls: number;
  /**
   * US dollars spent by the model calls that have a price. Absent when every model call was
   * unpriced: the cost is then unknown, never guessed.
   */
  readonly costUsd?: number;
  /** Model calls whose model has no price (their tokens count, their cost is unknown). */
  readonly unpricedModelCalls?: number;
}

/** What kind of call a {@link CallUsage} entry is. */
export type CallUsageKind = 'root' | 'sub_rlm' | 'llm_query';

/**
 * The usage of one call of a run's tree, its own model calls only (its children have their own
 * entries; `RLMResult.usage` is the sum over the tree).
 * - `root`: the root query's loop (steps, the forced final prompt, tool planning).
 * - `sub_rlm`: a `sub_rlm` (or `sub_rlm_batched`) child's loop; at `maxDepth`, the plain model
 *   calls that stand in for them (its `callId` is then the host request id).
 * - `llm_query`: one `llm_query` or `llm_query_batched` host call (all of a batch's model calls).
 */
export interface CallUsage {
  /** A call id (`call-1`) for root and `sub_rlm` children, else the host request id. */
  readonly callId: string;
  /** The call whose code made this one; absent for the root. */
  readonly parentCallId?: string;
  readonly kind: CallUsageKind;
  /** Tokens, model calls and cost of this call alone. */
  readonly usage: RunUsage;
}
