import type { ModelPrice } from '@rlm/core';
import { splitProvider } from './model-providers.js';
import { UsageError } from '../usage-error.js';

const shape =
  '<model>=<input>,<output>[,<cache-read>,<cache-write>] in US dollars per million tokens, e.g. --price claude-sonnet-5-5=2,10';

/**
 * Parses one `--price` value: `<model>=<input>,<output>[,<cache-read>,<cache-write>]`, US dollars
 * per million tokens. A known `provider:` prefix (`anthropic:`, `openai:`, `ollama:`) is dropped
 * and the rest kept whole: `qwen3:8b` and `ollama:qwen3:8b` both price `qwen3:8b`. Cache prices
 * that are not given default to the input price.
 *
 * @throws {UsageError} naming the expected shape when the value does not match it.
 */
export function parsePrice(text: string): { readonly modelId: string; readonly price: ModelPrice } {
  const equals = text.indexOf('=');
  const named = text.slice(0, Math.max(equals, 0)).trim();
  const modelId = splitProvider(named)?.modelId ?? named;
  const numbers = text
    .slice(equals + 1)
    .split(',')
    .map((part) => part.trim());
  const values = numbers.map((part) =>
    /^\d+(\.\d+)?$|^\.\d+$/.test(part) ? Number(part) : Number.NaN,
  );
  if (
    equals < 1 ||
    modelId === '' ||
    values.length < 2 ||
    values.length > 4 ||
    values.some((value) => !Number.isFinite(value))
  ) {
    throw new UsageError(`--price needs ${shape} (got ${JSON.stringify(text)})`);
  }
  const [input, output, cacheRead = input, cacheWrite = input] = values as [
    number,
    number,
    number?,
    number?,
  ];
  return {
    modelId,
    price: {
      inputPerMillionUsd: input,
      outputPerMillionUsd: output,
      cacheReadPerMillionUsd: cacheRead,
      cacheWritePerMillionUsd: cacheWrite,
    },
  };
}
