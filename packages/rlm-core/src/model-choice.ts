import { findModelPrice } from './cost/model-prices.js';
import { describeValue } from './bridge/describe-value.js';
import type { LanguageModel } from './language-model.js';
import type { ModelMenu } from './prompts.js';
import type { ModelPrices } from './budget-settings.js';

/** Which model ids model code may name in `{ model }` (see `RLMSettings.subModels`). */
export interface ModelChoicePolicy {
  /**
   * The ids allowed, without their provider prefix; `undefined`: any id the adapter makes; an
   * empty list: none (calls keep their own model).
   */
  readonly allowed: readonly string[] | undefined;
  /** Prices by model id: under a cost budget, a model without one is refused. */
  readonly prices: ModelPrices;
  /** Whether the run has a cost budget (`budget.maxCostUsd`). */
  readonly costBounded: boolean;
}

/** The provider a model id names (`anthropic` of `anthropic:claude-haiku-4-5`), or ''. */
export function providerOf(modelId: string): string {
  const colon = modelId.indexOf(':');
  return colon > 0 ? modelId.slice(0, colon) : '';
}

/**
 * PURE: `requested` without the provider prefix of `base` (`anthropic:claude-haiku-4-5` ->
 * `claude-haiku-4-5` for an Anthropic base); any other text is kept whole, since a model id may
 * hold colons of its own (`qwen3:8b`).
 */
export function modelIdFor(requested: string, base: LanguageModel): string {
  const provider = providerOf(base.modelId);
  return provider && requested.startsWith(`${provider}:`)
    ? requested.slice(provider.length + 1)
    : requested;
}

/**
 * PURE: whether model code may use `modelId` (already without its provider prefix): it must be
 * one of `policy.allowed` when there is such a list, and have a price under a cost budget.
 * Returns the problem, worded for model code and naming the ids allowed, or `undefined`.
 *
 * @param provider the provider the id belongs to, for the message (`anthropic`).
 */
export function modelChoiceProblem(
  modelId: string,
  provider: string,
  policy: ModelChoicePolicy,
): string | undefined {
  if (policy.allowed?.length === 0) {
    return `this run allows no other model; leave out { model }`;
  }
  if (policy.allowed && !policy.allowed.includes(modelId)) {
    return `model ${JSON.stringify(modelId)} is not one this run allows; choose one of: ${policy.allowed.join(', ')}`;
  }
  if (policy.costBounded && !findModelPrice(policy.prices, qualified(provider, modelId))) {
    const priced = policy.allowed
      ? policy.allowed.filter((id) => findModelPrice(policy.prices, qualified(provider, id)))
      : [];
    return `model ${JSON.stringify(modelId)} has no price, and this run has a cost budget; choose a model with a known price${priced.length > 0 ? `: ${priced.join(', ')}` : ''}`;
  }
  return undefined;
}

function qualified(provider: string, modelId: string): string {
  return provider ? `${provider}:${modelId}` : modelId;
}

/**
 * The models model code may name per call (`llm_query(prompt, { model })`, `sub_rlm(..., {
 * model })`): each made once by the adapter of the model the call would use otherwise
 * ({@link LanguageModel.withModel}), with another model id, and kept for the life of the RLM.
 */
export class ModelChoice {
  readonly #policy: ModelChoicePolicy;
  readonly #made = new Map<string, LanguageModel>();

  constructor(policy: ModelChoicePolicy) {
    this.#policy = policy;
  }

  /**
   * What the prompt says of the choice: the default models of plain calls and of children, and
   * the ids allowed with their prices; `undefined` when there is nothing to choose (an empty
   * list, or no list and an adapter that cannot switch models).
   */
  menu(plain: LanguageModel, child: LanguageModel): ModelMenu | undefined {
    const { allowed, prices } = this.#policy;
    if (allowed?.length === 0 || (!allowed && !plain.withModel)) return undefined;
    const provider = providerOf(plain.modelId);
    return {
      plainModel: modelIdFor(plain.modelId, plain),
      childModel: modelIdFor(child.modelId, child),
      allowed: allowed?.map((id) => {
        const price = findModelPrice(prices, provider ? `${provider}:${id}` : id);
        return price ? { id, price } : { id };
      }),
    };
  }

  /**
   * The model `requested` names, made from `base` (the model the call uses without a choice);
   * `base` itself when `requested` is `undefined` or names it.
   *
   * @param usage how model code wrote the call, for the message: `llm_query(prompt, { model })`.
   * @throws Error written for model code: an id that is not a non-empty string, that the run does
   *   not allow, or that the adapter cannot make.
   */
  resolve(requested: unknown, base: LanguageModel, usage: string): LanguageModel {
    if (requested === undefined) return base;
    if (typeof requested !== 'string' || requested.trim().length === 0) {
      throw new Error(
        `${usage} needs the model as a non-empty model id string; got ${describeValue(requested)}`,
      );
    }
    const modelId = modelIdFor(requested.trim(), base);
    if (modelId === modelIdFor(base.modelId, base)) return base;
    const provider = providerOf(base.modelId);
    const problem = modelChoiceProblem(modelId, provider, this.#policy);
    if (problem) throw new Error(`${usage}: ${problem}`);
    const key = `${provider}:${modelId}`;
    const made = this.#made.get(key);
    if (made) return made;
    if (!base.withModel) {
      throw new Error(
        `${usage}: this run's model adapter (${base.modelId}) cannot switch models; leave out { model }`,
      );
    }
    const model = base.withModel(modelId);
    this.#made.set(key, model);
    return model;
  }
}
