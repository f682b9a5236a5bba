/**
 * The model ids a served RLM answers to, as clients name them in `model`:
 *
 * ```
 * id     = "rlm"                      the server's default model
 *        | "rlm:" model [ "+" model ] the root model, and the sub-model for llm_query and the
 *                                     deepest sub_rlm calls (without it the root serves them)
 * model  = provider ":" model-id      e.g. anthropic:claude-sonnet-5-5, ollama:qwen2.5-coder:7b
 * ```
 *
 * A provider is a lowercase word (`[a-z][a-z0-9-]*`); a provider's model id is any text without
 * white space or `+` (it may hold colons and slashes). So
 * `rlm:anthropic:claude-sonnet-5-5+openai:gpt-5-mini` is Claude at the root and GPT-5 mini for
 * sub-calls.
 */
export interface ServedModelId {
  /** The id as a client names it, e.g. `rlm:anthropic:claude-sonnet-5-5`. */
  readonly id: string;
  /** The root model as `provider:model-id`. */
  readonly root: string;
  /** The sub-model as `provider:model-id`; absent when the root model serves sub-calls too. */
  readonly sub?: string;
}

/** The id of the server's default model. */
export const defaultServedModelAlias = 'rlm';

const modelPattern = /^[a-z][a-z0-9-]*:[^\s+]+$/;

/**
 * Parses `rlm:<provider>:<model-id>[+<provider>:<model-id>]` (see {@link ServedModelId}).
 * Returns `undefined` for anything else, `rlm` included (the alias names no model).
 */
export function parseServedModelId(id: string): ServedModelId | undefined {
  if (!id.startsWith('rlm:')) return undefined;
  const parts = id.slice('rlm:'.length).split('+');
  if (parts.length > 2 || !parts.every((part) => modelPattern.test(part))) return undefined;
  const [root, sub] = parts as [string, string | undefined];
  return sub === undefined ? { id, root } : { id, root, sub };
}

/** The served model id of a root model and an optional sub-model, each `provider:model-id`. */
export function formatServedModelId(root: string, sub?: string): string {
  return sub === undefined ? `rlm:${root}` : `rlm:${root}+${sub}`;
}
