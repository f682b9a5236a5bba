import Anthropic from '@anthropic-ai/sdk';
import { ModelCallError } from '../errors/model-call-error.js';
import type { LanguageModel } from '../language-model.js';
import { fromAnthropicMessage } from './from-anthropic-message.js';
import { toAnthropicRequest, withCacheBreakpoints } from './to-anthropic-request.js';
import { toModelCallError } from './to-model-call-error.js';

/**
 * The model used when `settings.model` is not given: the newest Sonnet-class model that
 * `@anthropic-ai/sdk` lists and does not mark deprecated.
 */
export const defaultAnthropicModelId = 'claude-sonnet-5-5';

/** `max_tokens` of a response when neither the request nor the settings set one. */
export const defaultAnthropicMaxTokens = 8192;

/** Retries of a transient fault (429, 408, 409, 5xx, 529, dropped connection, timeout). */
export const defaultAnthropicMaxRetries = 4;

/** Time allowed for one attempt, in milliseconds (the SDK's own default). */
export const defaultAnthropicTimeoutMs = 600_000;

export interface AnthropicModelSettings {
  /** Anthropic model id. Defaults to {@link defaultAnthropicModelId}. */
  readonly model?: string;
  /**
   * API key. Defaults to the `ANTHROPIC_API_KEY` environment variable; one of the two is
   * required unless `client` is given. Never appears in error messages.
   */
  readonly apiKey?: string;
  /** API base URL. Defaults to the SDK's: `ANTHROPIC_BASE_URL`, else `https://api.anthropic.com`. */
  readonly baseURL?: string;
  /** `max_tokens` when a request sets no `maxTokens`. Defaults to {@link defaultAnthropicMaxTokens}. */
  readonly maxTokens?: number;
  /**
   * Retries of transient faults, with exponential backoff (0.5 s doubling, at most 8 s) or as
   * long as the API's `retry-after` header says. Defaults to {@link defaultAnthropicMaxRetries}
   * (the injected client's own setting when `client` is given).
   */
  readonly maxRetries?: number;
  /**
   * Milliseconds allowed for one attempt; a timed-out attempt is retried, so a call may take
   * up to `(maxRetries + 1) * timeoutMs` plus backoff. Defaults to
   * {@link defaultAnthropicTimeoutMs} (the injected client's own setting when `client` is given).
   */
  readonly timeoutMs?: number;
  /**
   * Marks each request's stable prefix for the API's prompt cache (see `withCacheBreakpoints`):
   * each step then reads the earlier steps from the cache, billed at a tenth of the input price
   * (writes cost 1.25x). Requests marked `singleUse` are sent unmarked. Default true.
   */
  readonly promptCaching?: boolean;
  /** A ready client; `apiKey` and `baseURL` are then ignored. */
  readonly client?: Anthropic;
}

/**
 * Creates a {@link LanguageModel} backed by the Anthropic Messages API (non-streaming).
 * Requests are converted to a form the API accepts (see `toAnthropicMessages`); transient
 * faults are retried by the SDK; other faults reject with a one-line `ModelCallError`.
 * Aborting `options.signal` rejects with the signal's reason and is never retried.
 *
 * @throws {ModelCallError} when no API key is set and no `client` is given.
 */
export function createAnthropicModel(settings: AnthropicModelSettings = {}): LanguageModel {
  const model = settings.model ?? defaultAnthropicModelId;
  const maxTokens = settings.maxTokens ?? defaultAnthropicMaxTokens;
  const promptCaching = settings.promptCaching ?? true;
  const apiKey = settings.client ? undefined : (settings.apiKey ?? process.env.ANTHROPIC_API_KEY);
  if (!settings.client && !apiKey) {
    throw new ModelCallError(
      '@rlm/core/anthropic: no API key; set ANTHROPIC_API_KEY (or pass apiKey to createAnthropicModel)',
      { reason: 'authentication' },
    );
  }
  const client =
    settings.client ??
    new Anthropic({
      apiKey,
      ...(settings.baseURL ? { baseURL: settings.baseURL } : {}),
      maxRetries: settings.maxRetries ?? defaultAnthropicMaxRetries,
      timeout: settings.timeoutMs ?? defaultAnthropicTimeoutMs,
    });
  const maxRetries = settings.maxRetries ?? client.maxRetries;
  const timeoutMs = settings.timeoutMs ?? client.timeout;

  return {
    modelId: `anthropic:${model}`,
    supportsTools: true,
    async generate(request, options = {}) {
      const plain = toAnthropicRequest(request, { model, maxTokens });
      const body = promptCaching && !request.singleUse ? withCacheBreakpoints(plain) : plain;
      const { signal } = options;
      try {
        // An explicit timeout also keeps the SDK from refusing large non-streaming max_tokens.
        const message = await client.messages.create(body, {
          maxRetries,
          timeout: timeoutMs,
          ...(signal ? { signal } : {}),
        });
        return fromAnthropicMessage(message);
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        throw toModelCallError(error, {
          secrets: [apiKey, client.apiKey, client.authToken],
          baseURL: client.baseURL,
          timeoutMs,
          maxRetries,
        });
      }
    },
  };
}
