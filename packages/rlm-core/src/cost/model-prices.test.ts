import { describe, expect, test } from 'vitest';
import { bareModelId, defaultModelPrices, findModelPrice } from './model-prices.js';

describe('findModelPrice', () => {
  test('prices a Sonnet model and strips a provider prefix', () => {
    const sonnet = defaultModelPrices['claude-sonnet-5-5'];
    expect(sonnet).toEqual({
      inputPerMillionUsd: 2,
      outputPerMillionUsd: 10,
      cacheReadPerMillionUsd: 0.2,
      cacheWritePerMillionUsd: 2.5,
    });
    expect(findModelPrice(defaultModelPrices, 'claude-sonnet-5-5')).toBe(sonnet);
    expect(findModelPrice(defaultModelPrices, 'anthropic:claude-sonnet-5-5')).toBe(sonnet);
    expect(findModelPrice(defaultModelPrices, 'anthropic/claude-sonnet-5-5')).toBe(sonnet);
  });

  test('a dated snapshot takes the price of its longest matching key', () => {
    expect(findModelPrice(defaultModelPrices, 'claude-sonnet-4-5-20250929')).toBe(
      defaultModelPrices['claude-sonnet-4-5'],
    );
    expect(findModelPrice(defaultModelPrices, 'openai:gpt-4o-mini-2024-07-18')).toBe(
      defaultModelPrices['gpt-4o-mini'],
    );
    expect(findModelPrice(defaultModelPrices, 'gpt-5-mini')).toBe(defaultModelPrices['gpt-5-mini']);
  });

  test('an unknown model has no price, even when a key is a plain prefix of it', () => {
    expect(findModelPrice(defaultModelPrices, 'ollama:llama3.1')).toBeUndefined();
    expect(findModelPrice(defaultModelPrices, 'gpt-50')).toBeUndefined();
    expect(findModelPrice({}, 'claude-sonnet-5-5')).toBeUndefined();
  });

  test('bareModelId drops only a provider prefix', () => {
    expect(bareModelId('openai:gpt-5')).toBe('gpt-5');
    expect(bareModelId('gpt-5')).toBe('gpt-5');
    expect(bareModelId('ollama:qwen3:8b')).toBe('qwen3:8b');
  });

  test('a model id with colons is priced by its whole id or by the id after its provider', () => {
    const price = defaultModelPrices['gpt-4o-mini']!;
    expect(findModelPrice({ 'qwen3:8b': price }, 'ollama:qwen3:8b')).toBe(price);
    expect(findModelPrice({ 'ollama:qwen3:8b': price }, 'ollama:qwen3:8b')).toBe(price);
    expect(findModelPrice({ '8b': price }, 'ollama:qwen3:8b')).toBeUndefined();
  });
});
