import { BudgetExhaustedError } from './errors/budget-exhausted-error.js';
import type { Usage } from './language-model.js';
import type { BudgetSettings, RunUsage } from './rlm-settings.js';

/**
 * The one place a run's shared budgets live: model calls, tokens and wall time, counted across
 * the root call and all of its children (children get what is left).
 */
export class Budget {
  readonly #settings: BudgetSettings;
  readonly #startedAt = Date.now();
  #modelCalls = 0;
  #inputTokens = 0;
  #outputTokens = 0;

  constructor(settings: BudgetSettings = {}) {
    this.#settings = settings;
  }

  /** Usage so far. */
  get usage(): RunUsage {
    return {
      inputTokens: this.#inputTokens,
      outputTokens: this.#outputTokens,
      modelCalls: this.#modelCalls,
    };
  }

  /** Milliseconds of wall time left, or `undefined` when unlimited. */
  get remainingWallTimeMs(): number | undefined {
    const limit = this.#settings.maxWallTimeMs;
    return limit === undefined ? undefined : limit - (Date.now() - this.#startedAt);
  }

  /**
   * Reserves one model call. Throws `BudgetExhaustedError` when any budget is spent; call
   * before every model request.
   */
  reserveModelCall(): void {
    const { maxModelCalls, maxTokens, maxWallTimeMs } = this.#settings;
    if (maxModelCalls !== undefined && this.#modelCalls >= maxModelCalls) {
      throw new BudgetExhaustedError(
        `@rlm/core: the model call budget (${maxModelCalls} calls) is spent; raise budget.maxModelCalls`,
        { budget: 'modelCalls' },
      );
    }
    if (maxTokens !== undefined && this.#inputTokens + this.#outputTokens >= maxTokens) {
      throw new BudgetExhaustedError(
        `@rlm/core: the token budget (${maxTokens} tokens) is spent; raise budget.maxTokens`,
        { budget: 'tokens' },
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
  }

  /** Adds the usage a model call reported. */
  record(usage: Usage): void {
    this.#inputTokens += usage.inputTokens;
    this.#outputTokens += usage.outputTokens;
  }
}
