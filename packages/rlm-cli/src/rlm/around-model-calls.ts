import type { LanguageModel } from '@rlm/core';

/**
 * `model` whose calls go through `around`, which receives the adapter's `generate` and returns
 * the one to use: the same `modelId` and `supportsTools`, and each model `withModel` makes goes
 * through `around` too (a per-call model choice keeps what the CLI adds to its calls).
 */
export function aroundModelCalls(
  model: LanguageModel,
  around: (generate: LanguageModel['generate']) => LanguageModel['generate'],
): LanguageModel {
  const { withModel } = model;
  return {
    get modelId() {
      return model.modelId;
    },
    get supportsTools() {
      return model.supportsTools;
    },
    ...(withModel
      ? { withModel: (modelId: string) => aroundModelCalls(withModel.call(model, modelId), around) }
      : {}),
    generate: around((request, options) => model.generate(request, options)),
  };
}
