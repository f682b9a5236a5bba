import { describeValue } from './describe-value.js';

/** The options model code may give a model call: `llm_query(prompt, { model })`. */
export interface CallOptions {
  /** The model id to use for this call instead of the default; not yet checked. */
  readonly model?: unknown;
}

/**
 * Reads the options argument of `llm_query`, `llm_query_batched`, `sub_rlm` and
 * `sub_rlm_batched`: absent (`undefined` or `null`), or a plain object whose only key is `model`.
 *
 * @param usage how the call is written, for the error: `llm_query(prompt, options)`.
 * @throws Error written for model code, saying what to pass instead.
 */
export function readCallOptions(value: unknown, usage: string): CallOptions {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new Error(
      `${usage} takes options as an object such as { model: "id" }; got ${describeValue(value)}`,
    );
  }
  const keys = Object.keys(value);
  const unknown = keys.filter((key) => key !== 'model');
  if (unknown.length > 0) {
    throw new Error(
      `${usage} takes only the option model (e.g. { model: "id" }); got ${unknown.map((key) => JSON.stringify(key)).join(', ')}`,
    );
  }
  return keys.length === 0 ? {} : { model: (value as { model: unknown }).model };
}
