/** What one model charges, in US dollars per million tokens. */
export interface ModelPrice {
  /** Input tokens billed at the full price (not read from or written to a prompt cache). */
  readonly inputPerMillionUsd: number;
  /** Output tokens. */
  readonly outputPerMillionUsd: number;
  /** Input tokens read from the provider's prompt cache. */
  readonly cacheReadPerMillionUsd: number;
  /** Input tokens written to the provider's prompt cache. */
  readonly cacheWritePerMillionUsd: number;
}

/** Prices by model id (`claude-sonnet-5-5`, `gpt-5`, ...), without a provider prefix. */
export type ModelPrices = Readonly<Record<string, ModelPrice>>;

/** Limits shared by a run and all of its children. Unset means unlimited. */
export interface BudgetSettings {
  /** Total model calls (root, children, `llm_query`) per `query()`. */
  readonly maxModelCalls?: number;
  /** Total input + output tokens per `query()`, cache reads and writes included. */
  readonly maxTokens?: number;
  /**
   * Total cost per `query()`, in US dollars (a positive number). Needs a price for the root
   * and the sub model (built in for current Anthropic and OpenAI models, else `prices`).
   * Checked before each model call, so the last call may go past it.
   */
  readonly maxCostUsd?: number;
  /** Wall time per `query()`, in milliseconds. */
  readonly maxWallTimeMs?: number;
}
