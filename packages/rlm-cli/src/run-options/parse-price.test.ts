import { describe, expect, test } from 'vitest';
import { parsePrice } from './parse-price.js';

describe('parsePrice', () => {
  test('input and output; cache prices default to the input price', () => {
    expect(parsePrice('my-model=3,15')).toEqual({
      modelId: 'my-model',
      price: {
        inputPerMillionUsd: 3,
        outputPerMillionUsd: 15,
        cacheReadPerMillionUsd: 3,
        cacheWritePerMillionUsd: 3,
      },
    });
  });

  test('all four prices; a provider prefix is dropped', () => {
    expect(parsePrice('anthropic:claude-x=1.5,7.5,0.15,1.875')).toEqual({
      modelId: 'claude-x',
      price: {
        inputPerMillionUsd: 1.5,
        outputPerMillionUsd: 7.5,
        cacheReadPerMillionUsd: 0.15,
        cacheWritePerMillionUsd: 1.875,
      },
    });
  });

  test('only a known provider prefix is dropped; colons and slashes in the id are kept', () => {
    const id = (text: string) => parsePrice(text).modelId;
    expect(id('qwen3:8b=1,2')).toBe('qwen3:8b');
    expect(id('ollama:qwen3:8b=1,2')).toBe('qwen3:8b');
    expect(id('openai:meta-llama/Llama-3.1-8B=1,2')).toBe('meta-llama/Llama-3.1-8B');
    expect(id('meta-llama/Llama-3.1-8B=1,2')).toBe('meta-llama/Llama-3.1-8B');
  });

  test.each([
    'my-model',
    '=1,2',
    'my-model=1',
    'my-model=1,2,3,4,5',
    'my-model=-1,2',
    'my-model=1,x',
    'my-model=1,,2',
  ])('%j is a usage error showing the expected shape', (text) => {
    expect(() => parsePrice(text)).toThrow(
      /^--price needs <model>=<input>,<output>\[,<cache-read>,<cache-write>\] in US dollars per million tokens/,
    );
  });
});
