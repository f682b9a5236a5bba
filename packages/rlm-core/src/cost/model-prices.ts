import type { ModelPrice, ModelPrices } from '../budget-settings.js';

function price(input: number, output: number, cacheRead: number, cacheWrite: number): ModelPrice {
  return {
    inputPerMillionUsd: input,
    outputPerMillionUsd: output,
    cacheReadPerMillionUsd: cacheRead,
    cacheWritePerMillionUsd: cacheWrite,
  };
}

const fable = price(10, 50, 0.25, 12.5);
const opus5 = price(4, 20, 0.2, 5);
const sonnet5 = price(2, 10, 0.2, 2.5);
const opus4 = price(15, 75, 1.5, 18.75);
const sonnet4 = price(3, 15, 0.3, 3.75);

/**
 * List prices of current Anthropic and OpenAI models (November 2026), per million tokens.
 * OpenAI caches prompts by itself and bills no cache writes: its cache-write price is the input
 * price. Override or extend them with `createRLM({ prices })`.
 */
export const defaultModelPrices: ModelPrices = {
  'claude-fable-5-1': fable,
  'claude-fable-5': fable,
  'claude-opus-5-5': opus5,
  'claude-opus-5': opus5,
  'claude-sonnet-5-5': sonnet5,
  'claude-sonnet-5': sonnet5,
  'claude-opus-4-5': opus4,
  'claude-opus-4-1': opus4,
  'claude-opus-4': opus4,
  'claude-sonnet-4-5': sonnet4,
  'claude-sonnet-4': sonnet4,
  'claude-haiku-4-5': price(1, 5, 0.1, 1.25),
  'claude-3-5-haiku': price(0.8, 4, 0.08, 1),
  'gpt-5': price(1.25, 10, 0.125, 1.25),
  'gpt-5-mini': price(0.25, 2, 0.025, 0.25),
  'gpt-4.1': price(2, 8, 0.5, 2),
  'gpt-4.1-mini': price(0.4, 1.6, 0.1, 0.4),
  'gpt-4o': price(2.5, 10, 1.25, 2.5),
  'gpt-4o-mini': price(0.15, 0.6, 0.075, 0.15),
  o3: price(2, 8, 0.5, 2),
  'o4-mini': price(1.1, 4.4, 0.275, 1.1),
};

/**
 * The price of `modelId` in `prices`, or `undefined` when it has none (never a guess). A key
 * equal to the whole id wins (`ollama:qwen3:8b`), then one equal to the id without its
 * `provider:` or `provider/` prefix (`qwen3:8b`), else the longest key the prefix-less id
 * starts with followed by `-` (a dated snapshot such as `claude-sonnet-4-5-20250929` takes the
 * price of `claude-sonnet-4-5`).
 */
export function findModelPrice(prices: ModelPrices, modelId: string): ModelPrice | undefined {
  if (Object.hasOwn(prices, modelId)) return prices[modelId];
  const id = bareModelId(modelId);
  if (Object.hasOwn(prices, id)) return prices[id];
  let best: string | undefined;
  for (const key of Object.keys(prices)) {
    if (id.startsWith(`${key}-`) && (best === undefined || key.length > best.length)) best = key;
  }
  return best === undefined ? undefined : prices[best];
}

/** The model id without a `provider:` or `provider/` prefix. */
export function bareModelId(modelId: string): string {
  const match = /^[A-Za-z0-9_.-]+[:/](.+)$/.exec(modelId);
  return match ? match[1]! : modelId;
}
