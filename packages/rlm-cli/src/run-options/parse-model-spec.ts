import { UsageError } from '../usage-error.js';
import { type ModelProvider, modelProviders, splitProvider } from './model-providers.js';
import type { ModelSpec } from './run-options.js';

/**
 * Parses `<provider>:<model-id>` with provider `anthropic`, `openai` or `ollama`; the model id
 * may itself hold colons (`ollama:qwen2.5-coder:7b`). `replay:<trace>` takes the rest as it is
 * (a path may hold spaces). `source` names where the text came from (`--model`, `RLM_MODEL`)
 * in the error message.
 */
export function parseModelSpec(text: string, source: string): ModelSpec {
  const replay = /^replay:(.*)$/is.exec(text.trim());
  if (replay !== null) {
    const trace = replay[1]!.trim();
    if (trace === '') {
      throw new UsageError(
        `${source} replay: needs a trace: replay:<run.jsonl> (rlm trace <run-id> --jsonl -o run.jsonl) or replay:<run-id> (rlm runs)`,
      );
    }
    return { provider: 'replay', modelId: trace };
  }
  const match = /^([a-z][a-z0-9-]*):(\S+)$/i.exec(text.trim());
  const usage = modelProviders.map((provider) => `${provider}:<model-id>`).join(', ');
  if (match === null) {
    throw new UsageError(`${source} must look like ${usage} (got ${JSON.stringify(text)})`);
  }
  const provider = match[1]!.toLowerCase();
  if (!(modelProviders as readonly string[]).includes(provider)) {
    throw new UsageError(
      `${source} names provider ${JSON.stringify(provider)}; use ${usage} (openai: for any OpenAI-compatible server, with --base-url)`,
    );
  }
  return { provider: provider as ModelProvider, modelId: match[2]! };
}

/**
 * The ids of `--sub-models a,b`, without a provider prefix. An id may carry the provider of
 * `--sub-model` (else `--model`) as a prefix; one naming another provider, an empty entry or an
 * id with spaces is refused.
 */
export function parseSubModels(text: string, plain: ModelSpec, root: ModelSpec): string[] {
  const ids = text.split(',').map((entry) => entry.trim());
  const usage = `--sub-models needs model ids separated by commas, e.g. --sub-models ${plain.modelId},<another id>`;
  if (ids.some((id) => id === '' || /\s/.test(id))) {
    throw new UsageError(`${usage} (got ${JSON.stringify(text)})`);
  }
  return [
    ...new Set(
      ids.map((id) => {
        const named = splitProvider(id);
        if (named === undefined) return id;
        if (named.provider !== plain.provider && named.provider !== root.provider) {
          throw new UsageError(
            `--sub-models: ${id} is not a model of this run's provider (${plain.provider}); give ids of ${plain.provider} models, e.g. ${plain.modelId}`,
          );
        }
        return named.modelId;
      }),
    ),
  ];
}

/** Adds a `--base-url` / `--sub-base-url` value to a spec after checking it is an http(s) URL. */
export function withBaseURL(spec: ModelSpec, text: string | undefined, flag: string): ModelSpec {
  if (text === undefined) return spec;
  if (spec.provider === 'replay') {
    throw new UsageError(`${flag} does not apply to a replay:, which calls no API; drop ${flag}`);
  }
  let url: URL | undefined;
  try {
    url = new URL(text.trim());
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new UsageError(
      `${flag} must be an http(s) URL such as http://127.0.0.1:8000/v1 (got ${JSON.stringify(text)})`,
    );
  }
  return { ...spec, baseURL: text.trim() };
}
