import { type LanguageModel, ModelCallError, type ModelCallSetting } from '@rlm/core';
import { withFlags } from '../output/model-setting-flags.js';
import { aroundModelCalls } from './around-model-calls.js';

/**
 * `model`, whose failures name the command line's flags instead of the adapter's settings
 * (`the baseURL setting` becomes `--sub-base-url` for the sub-model), wherever they are read:
 * the run's last line, the `llm_query` failures shown on stderr, the error model code catches.
 */
export function nameModelFlags(
  model: LanguageModel,
  flags: Readonly<Record<ModelCallSetting, string>>,
): LanguageModel {
  return aroundModelCalls(
    model,
    (generate) => (request, options) =>
      generate(request, options).catch((error: unknown) => {
        if (!ModelCallError.isInstance(error) || error.settings.length === 0) throw error;
        throw new ModelCallError(withFlags(error.message, error.settings, flags), {
          ...(error.status === undefined ? {} : { status: error.status }),
          retryable: error.retryable,
          reason: error.reason,
          cause: error,
        });
      }),
  );
}
