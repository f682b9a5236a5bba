import {
  addModelCallUsage,
  emptyRunUsage,
  type GenerateRequest,
  type LanguageModel,
  type ModelPrice,
  type RunUsage,
  usageCostUsd,
} from '@rlm/core';

/** One model call's text and what it spent. */
export interface SingleCall {
  readonly text: string;
  /** One model call's tokens, priced when a price is given. */
  readonly usage: RunUsage;
  /** US dollars; absent without a price. */
  readonly costUsd?: number;
}

/**
 * Sends one request to `model` and prices its usage with `price` (when given). Rejects like
 * the model does.
 */
export async function callModelOnce(
  model: LanguageModel,
  request: GenerateRequest,
  options: { readonly price?: ModelPrice | undefined; readonly signal?: AbortSignal | undefined },
): Promise<SingleCall> {
  const result = await model.generate(
    request,
    options.signal === undefined ? {} : { signal: options.signal },
  );
  const costUsd =
    options.price === undefined ? undefined : usageCostUsd(result.usage, options.price);
  const usage = addModelCallUsage(emptyRunUsage(), result.usage, costUsd);
  return costUsd === undefined
    ? { text: result.text, usage }
    : { text: result.text, usage, costUsd };
}
