import type { LanguageModel } from '@rlm/core';
import { ServerSettingsError } from './errors/server-settings-error.js';

/**
 * The models one served id runs on: `model`, and `subModel` for `llm_query` and the deepest
 * `sub_rlm` calls, as `createRLM` names them.
 */
export interface ServedModel {
  /** The root model (required; `llm` is its deprecated name). */
  readonly model?: LanguageModel;
  /**
   * The model for `llm_query` and the deepest `sub_rlm` calls; defaults to `model` (`subLlm` is
   * its deprecated name).
   */
  readonly subModel?: LanguageModel;
  /** @deprecated Use `model`; warns once (`RLM_DEP_SERVED_MODEL_NAMES`). */
  readonly llm?: LanguageModel;
  /** @deprecated Use `subModel`; warns once (`RLM_DEP_SERVED_MODEL_NAMES`). */
  readonly subLlm?: LanguageModel;
}

/** Deprecated names already warned about in this process: one warning per name. */
const warned = new Set<string>();

/**
 * `served` under the current names only: `model` (required) and `subModel`, taken from `llm` and
 * `subLlm` when only those are given, with one `RLM_DEP_SERVED_MODEL_NAMES` deprecation warning
 * per name per process.
 *
 * @throws {ServerSettingsError} when `id` has no root model, or gives one name and its
 * deprecated one different models.
 */
export function withCurrentNames(served: ServedModel, id: string): ServedModel {
  const model = current(served.model, served.llm, 'model', 'llm', id);
  if (model === undefined) {
    throw new ServerSettingsError(
      `@rlm/server: the served model ${JSON.stringify(id)} has no root model; give it { model }`,
    );
  }
  const subModel = current(served.subModel, served.subLlm, 'subModel', 'subLlm', id);
  return subModel === undefined ? { model } : { model, subModel };
}

function current(
  value: LanguageModel | undefined,
  deprecated: LanguageModel | undefined,
  name: string,
  deprecatedName: string,
  id: string,
): LanguageModel | undefined {
  if (deprecated === undefined) return value;
  if (value !== undefined && value !== deprecated) {
    throw new ServerSettingsError(
      `@rlm/server: the served model ${JSON.stringify(id)} gives both ${name} and ${deprecatedName} with different models; keep only ${name}`,
    );
  }
  if (!warned.has(deprecatedName)) {
    warned.add(deprecatedName);
    process.emitWarning(
      `@rlm/server: a served model's ${deprecatedName} is deprecated and will be removed in the next minor version; name it ${name}, as createRLM does`,
      { type: 'DeprecationWarning', code: 'RLM_DEP_SERVED_MODEL_NAMES' },
    );
  }
  return deprecated;
}
