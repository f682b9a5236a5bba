import { findModelPrice } from './cost/model-prices.js';
import { usageCostUsd } from './cost/usage-cost.js';
import { BudgetExhaustedError } from './errors/budget-exhausted-error.js';
import type { Usage } from './language-model.js';
import type { BudgetSettings, ModelPrices } from './budget-settings.js';
import type { RunUsage } from './run-usage.js';

/** What is left of each budget that is set; a budget that is not set is absent (unlimited). */
export interface RemainingBudget {
  readonly modelCalls?: number;
  readonly tokens?: number;
  /** US dollars. */
  readonly costUsd?: number;
  readonly wallTimeMs?: number;
}

/**
 * The one place a run's shared budgets live: model calls, tokens, dollars and wall time, counted
 * across the root call and all of its children (children get what is left).
 */
export class Budget {
  readonly #settings: BudgetSettings;
  readonly #prices: ModelPrices;
  readonly #startedAt = Date.now();
  #modelCalls = 0;
  #inputTokens = 0;
  #outputTokens = 0;
  #cacheReadTokens = 0;
  #cacheWriteTokens = 0;
  #costUsd = 0;
  #pricedModelCalls = 0;
  #unpricedModelCalls = 0;

  /** @param prices what each model costs; a model without a price has an unknown cost. */
  constructor(settings: BudgetSettings = {}, prices: ModelPrices = {}) {
    this.#settings = settings;
    this.#prices = prices;
  }

  /** Usage so far. `costUsd` is absent when every model call so far was unpriced. */
  get usage(): RunUsage {
    const allUnpriced = this.#unpricedModelCalls > 0 && this.#pricedModelCalls === 0;
    return {
      inputTokens: this.#inputTokens,
      outputTokens: this.#outputTokens,
      cacheReadTokens: this.#cacheReadTokens,
      cacheWriteTokens: this.#cacheWriteTokens,
      modelCalls: this.#modelCalls,
      ...(allUnpriced ? {} : { costUsd: this.#costUsd }),
      ...(this.#unpricedModelCalls > 0 ? { unpricedModelCalls: this.#unpricedModelCalls } : {}),
    };
  }

  /** Milliseconds of wall time left, or `undefined` when unlimited. */
  get remainingWallTimeMs(): number | undefined {
    const limit = this.#settings.maxWallTimeMs;
    return limit === undefined ? undefined : limit - (Date.now() - this.#startedAt);
  }

  /** What is left of each budget that is set, never below 0. */
  get remaining(): RemainingBudget {
    const { maxModelCalls, maxTokens, maxCostUsd } = this.#settings;
    const wallTimeMs = this.remainingWallTimeMs;
    return {
      ...(maxModelCalls === undefined
        ? {}
        : { modelCalls: Math.max(0, maxModelCalls - this.#modelCalls) }),
      ...(maxTokens === undefined ? {} : { tokens: Math.max(0, maxTokens - this.#totalTokens()) }),
      ...(maxCostUsd === undefined ? {} : { costUsd: Math.max(0, maxCostUsd - this.#costUsd) }),
      ...(wallTimeMs === undefined ? {} : { wallTimeMs: Math.max(0, wallTimeMs) }),
    };
  }

  /**
   * Checks that `count` model calls fit in the model call budget before a batch sends any of
   * them, so a batch too large is refused whole and charges nothing: what is left stays for
   * the calls that can still use it (the root's answer).
   *
   * @param usage how model code called the batch, for the message: `llm_query_batched(prompts)`.
   * @throws Error written for model code when they do not fit.
   */
  admitBatch(count: number, usage: string): void {
    const left = this.remaining.modelCalls;
    if (left === undefined || count <= left) return;
    const budget = `the model call budget, which has ${left} left (budget.maxModelCalls ${this.#settings.maxModelCalls}); nothing was sent`;
    throw new Error(
      left === 0
        ? `${usage}: refused: ${budget}. Answer with what you have`
        : `${usage}: refused: ${count} calls do not fit in ${budget}. Send at most ${left}, fewer to keep some for your answer`,
    );
  }

  /**
   * Reserves one model call. Throws `BudgetExhaustedError` when any budget is spent; call
   * before every model request.
   */
  reserveModelCall(): void {
    const { maxModelCalls, maxTokens, maxCostUsd, maxWallTimeMs } = this.#settings;
    if (maxModelCalls !== undefined && this.#modelCalls >= maxModelCalls) {
      throw new BudgetExhaustedError(
        `@rlm/core: the model call budget (${maxModelCalls} calls) is spent; raise budget.maxModelCalls`,
        { budget: 'modelCalls' },
      );
    }
    if (maxTokens !== undefined && this.#totalTokens() >= maxTokens) {
      throw new BudgetExhaustedError(
        `@rlm/core: the token budget (${maxTokens} tokens) is spent; raise budget.maxTokens`,
        { budget: 'tokens' },
      );
    }
    if (maxCostUsd !== undefined && this.#costUsd >= maxCostUsd) {
      throw new BudgetExhaustedError(
        `@rlm/core: the cost budget ($${maxCostUsd}) is spent ($${this.#costUsd.toFixed(4)} used); raise budget.maxCostUsd`,
        { budget: 'cost' },
      );
    }
    if (maxWallTimeMs !== undefined && Date.now() - this.#startedAt >= maxWallTimeMs) {
      throw new BudgetExhaustedError(
        `@rlm/core: the wall time budget (${maxWallTimeMs} ms) is spent; raise budget.maxWallTimeMs`,
        { budget: 'wallTime' },
      );
    }
    this.#modelCalls += 1;
  }

  /** Counts usage spent before a resume, so budgets hold across a crash. */
  restore(usage: RunUsage): void {
    this.#modelCalls += usage.modelCalls;
    this.#inputTokens += usage.inputTokens;
    this.#outputTokens += usage.outputTokens;
    this.#cacheReadTokens += usage.cacheReadTokens ?? 0;
    this.#cacheWriteTokens += usage.cacheWriteTokens ?? 0;
    this.#unpricedModelCalls += usage.unpricedModelCalls ?? 0;
    if (usage.costUsd !== undefined) {
      this.#costUsd += usage.costUsd;
      this.#pricedModelCalls += Math.max(0, usage.modelCalls - (usage.unpricedModelCalls ?? 0));
    }
  }

  /**
   * Adds the usage one model call of `modelId` reported.
   *
   * @returns the call's cost in US dollars, or `undefined` when the model has no price.
   */
  record(usage: Usage, modelId: string): number | undefined {
    this.#inputTokens += usage.inputTokens;
    this.#outputTokens += usage.outputTokens;
    this.#cacheReadTokens += usage.cacheReadTokens ?? 0;
    this.#cacheWriteTokens += usage.cacheWriteTokens ?? 0;
    const price = findModelPrice(this.#prices, modelId);
    if (!price) {
      this.#unpricedModelCalls += 1;
      return undefined;
    }
    const cost = usageCostUsd(usage, price);
    this.#costUsd += cost;
    this.#pricedModelCalls += 1;
    return cost;
  }

  #totalTokens(): number {
    return this.#inputTokens + this.#outputTokens + this.#cacheReadTokens + this.#cacheWriteTokens;
  }
}
