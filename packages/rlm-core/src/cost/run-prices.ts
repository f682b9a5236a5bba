import { ModelPriceError } from '../errors/model-price-error.js';
import type { LanguageModel } from '../language-model.js';
import type { BudgetSettings, ModelPrices } from '../budget-settings.js';
import { bareModelId, defaultModelPrices, findModelPrice } from './model-prices.js';

const priceFields = [
  'inputPerMillionUsd',
  'outputPerMillionUsd',
  'cacheReadPerMillionUsd',
  'cacheWritePerMillionUsd',
] as const;

/**
 * The prices a run uses: {@link defaultModelPrices} with `settings.prices` on top. Each given
 * price must have all four fields as finite numbers >= 0. With `budget.maxCostUsd` set, the
 * root model and the sub model must have a price, so the budget can be kept.
 *
 * @throws {ModelPriceError} for a malformed price or a model without one under `maxCostUsd`.
 * @throws {RangeError} when `budget.maxCostUsd` is not a positive finite number.
 */
export function runPrices(settings: {
  readonly llm: LanguageModel;
  readonly subLlm?: LanguageModel;
  readonly prices?: ModelPrices;
  readonly budget?: BudgetSettings;
}): ModelPrices {
  for (const [modelId, price] of Object.entries(settings.prices ?? {})) {
    for (const field of priceFields) {
      const value: unknown = (price as unknown as Record<string, unknown>)?.[field];
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
        throw new ModelPriceError(
          `@rlm/core: prices['${modelId}'].${field} must be a finite number >= 0, got ${String(value)}`,
          { modelId },
        );
      }
    }
  }
  const prices: ModelPrices = { ...defaultModelPrices, ...settings.prices };
  const maxCostUsd = settings.budget?.maxCostUsd;
  if (maxCostUsd === undefined) return prices;
  if (typeof maxCostUsd !== 'number' || !Number.isFinite(maxCostUsd) || maxCostUsd <= 0) {
    throw new RangeError(
      `@rlm/core: budget.maxCostUsd must be a positive number of US dollars, got ${String(maxCostUsd)}`,
    );
  }
  for (const model of [settings.llm, settings.subLlm ?? settings.llm]) {
    if (!findModelPrice(prices, model.modelId)) {
      throw new ModelPriceError(
        `@rlm/core: budget.maxCostUsd needs a price for the model '${model.modelId}', which has none; give one in createRLM({ prices: { '${bareModelId(model.modelId)}': { inputPerMillionUsd, outputPerMillionUsd, cacheReadPerMillionUsd, cacheWritePerMillionUsd } } })`,
        { modelId: model.modelId },
      );
    }
  }
  return prices;
}
