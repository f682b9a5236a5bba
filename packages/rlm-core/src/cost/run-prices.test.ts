import { describe, expect, test } from 'vitest';
import { ModelPriceError } from '../errors/model-price-error.js';
import type { LanguageModel } from '../language-model.js';
import { defaultModelPrices } from './model-prices.js';
import { runPrices } from './run-prices.js';

function model(modelId: string): LanguageModel {
  return {
    modelId,
    supportsTools: false,
    generate: () => Promise.reject(new Error('not called')),
  };
}

const price = {
  inputPerMillionUsd: 1,
  outputPerMillionUsd: 2,
  cacheReadPerMillionUsd: 0.1,
  cacheWritePerMillionUsd: 1.25,
};

describe('runPrices', () => {
  test('given prices go on top of the defaults', () => {
    const prices = runPrices({
      llm: model('local:mine'),
      prices: { mine: price, 'gpt-5': price },
    });
    expect(prices.mine).toEqual(price);
    expect(prices['gpt-5']).toEqual(price);
    expect(prices['claude-sonnet-5-5']).toBe(defaultModelPrices['claude-sonnet-5-5']);
  });

  test('a malformed price is a typed error naming the model and field', () => {
    let error: unknown;
    try {
      runPrices({ llm: model('x'), prices: { x: { ...price, outputPerMillionUsd: -1 } } });
    } catch (caught) {
      error = caught;
    }
    expect(ModelPriceError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/prices\['x'\]\.outputPerMillionUsd/);
  });

  test('maxCostUsd needs a price for the root and the sub model', () => {
    expect(() =>
      runPrices({
        llm: model('anthropic:claude-sonnet-5-5'),
        subLlm: model('local:mystery'),
        budget: { maxCostUsd: 1 },
      }),
    ).toThrow(/price for the model 'local:mystery'.*prices: \{ 'mystery'/);
    expect(
      runPrices({
        llm: model('anthropic:claude-sonnet-5-5'),
        subLlm: model('local:mystery'),
        prices: { mystery: price },
        budget: { maxCostUsd: 1 },
      }).mystery,
    ).toEqual(price);
  });

  test('maxCostUsd must be a positive number', () => {
    expect(() => runPrices({ llm: model('gpt-5'), budget: { maxCostUsd: 0 } })).toThrow(
      /maxCostUsd must be a positive number/,
    );
  });
});
