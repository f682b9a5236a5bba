/** The providers `--model`, `--sub-model` and `--price` accept as a `provider:` prefix. */
export const modelProviders = ['anthropic', 'openai', 'ollama'] as const;

/** A provider `--model` and `--sub-model` accept. */
export type ModelProvider = (typeof modelProviders)[number];

/**
 * Splits `provider:model-id` when the prefix is one of {@link modelProviders} (in any case);
 * the model id is kept whole, colons and slashes included (`ollama:qwen3:8b` is `ollama` and `qwen3:8b`).
 *
 * @returns `undefined` when the text has no known provider prefix.
 */
export function splitProvider(
  text: string,
): { readonly provider: ModelProvider; readonly modelId: string } | undefined {
  const colon = text.indexOf(':');
  const provider = text.slice(0, Math.max(colon, 0)).toLowerCase();
  if (!(modelProviders as readonly string[]).includes(provider)) return undefined;
  return { provider: provider as ModelProvider, modelId: text.slice(colon + 1) };
}
