import type { LanguageModel } from '@rlm/core';
import type { ModelProvider } from '../run-options/model-providers.js';
import type { ModelSpec } from '../run-options/run-options.js';
import { createCliReplayModel } from './create-cli-replay-model.js';
import { UsageError } from '../usage-error.js';

/** Where `ollama:` models are served when `--base-url` does not say: Ollama's local API. */
export const defaultOllamaBaseURL = 'http://127.0.0.1:11434/v1';

/** How model calls meet API faults; `undefined` keeps the adapter's default. */
export interface CliModelCallSettings {
  readonly timeoutMs?: number | undefined;
  readonly maxRetries?: number | undefined;
  readonly maxRetryAfterMs?: number | undefined;
  /** `false` asks every model for one JSON body instead of a stream. */
  readonly stream?: boolean | undefined;
  /** The most bytes of one response read. */
  readonly maxResponseBytes?: number | undefined;
}

function definedFields<Fields extends object>(record: Fields): Partial<Fields> {
  return Object.fromEntries(
    Object.entries(record).filter(([, value]) => value !== undefined),
  ) as Partial<Fields>;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function isOpenAIHost(url: string): boolean {
  try {
    return new URL(url).hostname === 'api.openai.com';
  } catch {
    return false;
  }
}

/**
 * The provider adapters a process has loaded: each is imported only when a model spec names
 * it, since each provider's SDK costs a process megabytes that a run on another provider would
 * keep for nothing.
 */
export interface CliModelAdapters {
  readonly anthropic?: typeof import('@rlm/anthropic');
  readonly openai?: typeof import('@rlm/openai');
}

/** Loads the adapters of `providers` (`ollama:` speaks OpenAI's API; `replay:` needs none). */
export async function loadCliModelAdapters(
  providers: Iterable<ModelProvider | 'replay'>,
): Promise<CliModelAdapters> {
  const wanted = new Set(providers);
  const [anthropic, openai] = await Promise.all([
    wanted.has('anthropic') ? import('@rlm/anthropic') : undefined,
    wanted.has('openai') || wanted.has('ollama') ? import('@rlm/openai') : undefined,
  ]);
  return { ...(anthropic ? { anthropic } : {}), ...(openai ? { openai } : {}) };
}

/**
 * Creates the model a `--model` / `--sub-model` spec names, with its credentials from `env`:
 * - `anthropic:` reads `ANTHROPIC_API_KEY` (required) and `ANTHROPIC_BASE_URL`;
 * - `openai:` reads `OPENAI_API_KEY` and `OPENAI_BASE_URL`; the key is required only for the
 *   OpenAI API itself, not for another server given by `--base-url` or `OPENAI_BASE_URL`;
 * - `ollama:` talks to `--base-url`, else {@link defaultOllamaBaseURL}, with no key;
 * - `replay:<trace>` answers with the responses recorded in a run's trace, with no API at all.
 * `spec.baseURL` wins over the environment. Nothing is sent: creating a model calls no API.
 * Loads the spec's adapter only (see {@link loadCliModelAdapters}).
 *
 * @throws {UsageError} naming the variable to set when a required key is missing, or the trace
 *   when a replay's cannot be read.
 */
export async function createCliModel(
  spec: ModelSpec,
  env: Readonly<Record<string, string | undefined>>,
  calls: CliModelCallSettings,
): Promise<LanguageModel> {
  return createCliModelWith(await loadCliModelAdapters([spec.provider]), spec, env, calls);
}

/**
 * {@link createCliModel} with adapters already loaded, for a caller that must answer at once
 * (`rlm serve --any-model` resolving a request's model id).
 *
 * @throws {Error} when the spec's adapter is not among `adapters` (a bug of the caller).
 */
export function createCliModelWith(
  adapters: CliModelAdapters,
  spec: ModelSpec,
  env: Readonly<Record<string, string | undefined>>,
  calls: CliModelCallSettings,
): LanguageModel {
  const faults = definedFields(calls);
  switch (spec.provider) {
    case 'anthropic': {
      const apiKey = nonEmpty(env.ANTHROPIC_API_KEY);
      if (!apiKey) {
        throw new UsageError(
          `ANTHROPIC_API_KEY is not set; export ANTHROPIC_API_KEY=<your key> (from https://console.anthropic.com/settings/keys) to use anthropic:${spec.modelId}`,
        );
      }
      const baseURL = spec.baseURL ?? nonEmpty(env.ANTHROPIC_BASE_URL);
      return loaded(adapters.anthropic, spec).createAnthropicModel({
        model: spec.modelId,
        apiKey,
        ...(baseURL ? { baseURL } : {}),
        ...faults,
      });
    }
    case 'openai': {
      const { createOpenAIModel, openAIBaseURL } = loaded(adapters.openai, spec);
      const baseURL = spec.baseURL ?? nonEmpty(env.OPENAI_BASE_URL) ?? openAIBaseURL;
      const apiKey = nonEmpty(env.OPENAI_API_KEY);
      if (!apiKey && isOpenAIHost(baseURL)) {
        throw new UsageError(
          `OPENAI_API_KEY is not set; export OPENAI_API_KEY=<your key> (from https://platform.openai.com/api-keys) to use openai:${spec.modelId}, or give --base-url for a server that needs none`,
        );
      }
      return createOpenAIModel({
        model: spec.modelId,
        baseURL,
        ...(apiKey ? { apiKey } : {}),
        ...faults,
      });
    }
    case 'replay':
      return createCliReplayModel(spec);
    case 'ollama': {
      const { createOpenAIModel, keylessPlaceholder } = loaded(adapters.openai, spec);
      return createOpenAIModel({
        model: spec.modelId,
        provider: 'ollama',
        baseURL: spec.baseURL ?? defaultOllamaBaseURL,
        // Never OPENAI_API_KEY: a local server has no use for it.
        apiKey: keylessPlaceholder,
        ...faults,
      });
    }
  }
}

function loaded<Adapter>(adapter: Adapter | undefined, spec: ModelSpec): Adapter {
  if (adapter === undefined) {
    throw new Error(
      `@rlm/cli: the adapter of ${spec.provider}: is not loaded; load it with loadCliModelAdapters first`,
    );
  }
  return adapter;
}
