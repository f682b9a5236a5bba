import Anthropic from '@anthropic-ai/sdk';
import {
  AttemptTimeoutError,
  defaultMaxResponseBytes,
  type GenerateResult,
  isRetryableStatus,
  keepAliveFetch,
  type LanguageModel,
  limitResponseBytes,
  ModelCallError,
  ResponseTooLargeError,
  readRetryAfterMs,
  retryModelCall,
  type RetryVerdict,
} from '@rlm/core';
import { defaultAnthropicModelId } from './default-anthropic-model-id.js';
import { fromAnthropicMessage } from './from-anthropic-message.js';
import { MalformedBodyError } from './malformed-body-error.js';
import { readMessageBody } from './read-message-body.js';
import { readMessageStream } from './read-message-stream.js';
import { StreamApiError } from './stream-api-error.js';
import { StreamCutError } from './stream-cut-error.js';
import { toAnthropicRequest, withCacheBreakpoints } from './to-anthropic-request.js';
import { toModelCallError } from './to-model-call-error.js';

/** `max_tokens` of a response when neither the request nor the settings set one. */
export const defaultAnthropicMaxTokens = 8192;

/**
 * Retries of a transient fault (429, 408, 409, 5xx, 529, a dropped connection, a timeout, a
 * body that is not the API's JSON): 2, so 3 attempts in all.
 */
export const defaultAnthropicMaxRetries = 2;

/**
 * Time allowed for one attempt, in milliseconds: 60 s. Streamed, it bounds the wait for the
 * first event and each silence between two events, so a long answer that keeps coming is never
 * cut; unstreamed, the whole attempt until the body's last byte. With the default retries a
 * call that never gets an answer fails after about 3 min 2 s (3 x 60 s + 0.5 s + 1 s of
 * backoff).
 */
export const defaultAnthropicTimeoutMs = 60_000;

/** The longest `retry-after` wait honoured, in milliseconds: 60 s. */
export const defaultAnthropicMaxRetryAfterMs = 60_000;

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
   * Retries of transient faults (0 or more). Each waits as long as the API's `retry-after`
   * says (up to `maxRetryAfterMs`), else backs off: 0.5 s, doubling, at most 8 s. Defaults to
   * {@link defaultAnthropicMaxRetries} (the injected client's own setting when `client` is
   * given).
   */
  readonly maxRetries?: number;
  /**
   * Milliseconds allowed, streamed, before the first event and between two events (a stream
   * that goes silent that long is dropped); unstreamed, from sending the request to the last
   * byte of the answer. A timed-out attempt is retried. Defaults to
   * {@link defaultAnthropicTimeoutMs} (the injected client's own setting when `client` is
   * given).
   */
  readonly timeoutMs?: number;
  /**
   * The longest wait before a retry that the API may ask for with `retry-after`, in
   * milliseconds. When it asks for more, the call fails at once with a message saying how long
   * it asked to wait. Defaults to {@link defaultAnthropicMaxRetryAfterMs}.
   */
  readonly maxRetryAfterMs?: number;
  /**
   * The most bytes of one response read (streamed or not), counted as they arrive: past it the
   * attempt is cut and retried like a server fault, and once retries run out the call fails
   * saying so. Defaults to `defaultMaxResponseBytes` (8 MiB) of `@rlm/core`.
   */
  readonly maxResponseBytes?: number;
  /**
   * Marks each request's stable prefix for the API's prompt cache (see `withCacheBreakpoints`):
   * each step then reads the earlier steps from the cache, billed at a tenth of the input price
   * (writes cost 1.25x). Requests marked `singleUse` are sent unmarked. Default true.
   */
  readonly promptCaching?: boolean;
  /**
   * Stream responses (`stream: true`, server-sent events), so `onText` gets the text as it
   * arrives and long answers never meet the API's limits on unstreamed ones. Default true; set
   * false for a proxy or gateway that cannot stream.
   */
  readonly stream?: boolean;
  /**
   * The `fetch` requests go through. Defaults to `keepAliveFetch` of `@rlm/core` (Node's HTTP
   * client over a keep-alive connection pool, cheaper per request than the global `fetch`);
   * pass `fetch` itself, or your own (a proxy, a recorder), to replace it. Ignored with `client`,
   * which keeps its own.
   */
  readonly fetch?: typeof fetch;
  /** A ready client; `apiKey`, `baseURL` and `fetch` are then ignored. */
  readonly client?: Anthropic;
}

/** How much later than `timeoutMs` the SDK's own timer fires, so that ours always wins. */
const sdkTimeoutSlackMs = 1_000;

function judge(error: unknown): RetryVerdict {
  if (error instanceof ResponseTooLargeError) {
    return {
      retryable: true,
      retryAfterMs: undefined,
      retry: { reason: 'server', detail: error.retryDetail },
    };
  }
  if (
    error instanceof AttemptTimeoutError ||
    error instanceof Anthropic.APIConnectionTimeoutError
  ) {
    return {
      retryable: true,
      retryAfterMs: undefined,
      retry: { reason: 'timeout', detail: describeTimeout(error) },
    };
  }
  if (error instanceof StreamCutError) {
    return {
      retryable: true,
      retryAfterMs: undefined,
      retry: { reason: 'network', detail: `stopped mid-answer (${error.problem})` },
    };
  }
  if (error instanceof StreamApiError) {
    return {
      retryable: isRetryableStatus(error.status),
      retryAfterMs: undefined,
      retry: {
        reason: error.status === 429 ? 'rate-limited' : 'server',
        status: error.status,
        detail: `stopped mid-answer with ${error.errorType}`,
      },
    };
  }
  if (error instanceof MalformedBodyError) {
    return {
      retryable: true,
      retryAfterMs: undefined,
      retry: {
        reason: 'server',
        status: error.status,
        detail: `answered ${error.status} with a body that is not a message (${error.problem})`,
      },
    };
  }
  if (error instanceof Anthropic.APIUserAbortError) {
    return { retryable: false, retryAfterMs: undefined, retry: { reason: 'aborted', detail: '' } };
  }
  if (error instanceof Anthropic.APIConnectionError) {
    return {
      retryable: true,
      retryAfterMs: undefined,
      retry: { reason: 'network', detail: `could not be reached (${rootCause(error)})` },
    };
  }
  if (error instanceof Anthropic.APIError && error.status !== undefined) {
    const shouldRetry = error.headers?.get('x-should-retry');
    const retryable =
      shouldRetry === 'true' || (shouldRetry !== 'false' && isRetryableStatus(error.status));
    return {
      retryable,
      retryAfterMs: readRetryAfterMs(error.headers),
      retry: {
        reason: error.status === 429 ? 'rate-limited' : error.status === 408 ? 'timeout' : 'server',
        status: error.status,
        detail: `answered ${error.status}${error.type ? ` ${error.type}` : ''}`,
      },
    };
  }
  return { retryable: false, retryAfterMs: undefined, retry: { reason: 'unknown', detail: '' } };
}

function describeTimeout(
  error: AttemptTimeoutError | InstanceType<typeof Anthropic.APIConnectionTimeoutError>,
): string {
  return error instanceof AttemptTimeoutError ? error.retryDetail : 'did not answer in time';
}

function rootCause(error: unknown): string {
  let current = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  const message = current instanceof Error ? current.message : String(current);
  return message.replace(/\s+/g, ' ').trim().slice(0, 120);
}

/**
 * Creates a {@link LanguageModel} backed by the Anthropic Messages API, streamed by default
 * (each piece of text goes to `options.onText` as it arrives; `stream: false` asks for one
 * JSON body).
 * Requests are converted to a form the API accepts (see `toAnthropicMessages`). Transient
 * faults (429, 408, 409, 5xx, a dropped connection, an attempt past `timeoutMs`, a 2xx body
 * that is not a message, a stream cut mid-answer or ended by an `overloaded_error` event) are
 * retried here, each wait announced through `options.onRetry`;
 * other faults, and transient ones once retries run out, reject with a one-line
 * `ModelCallError` whose `settings` lists the settings its message names. Aborting
 * `options.signal` rejects with the signal's reason and is never retried.
 *
 * @throws {ModelCallError} when no API key is set and no `client` is given, or a setting is
 * not a whole number in range.
 */
export function createAnthropicModel(settings: AnthropicModelSettings = {}): LanguageModel {
  const model = settings.model ?? defaultAnthropicModelId;
  const maxTokens = settings.maxTokens ?? defaultAnthropicMaxTokens;
  const promptCaching = settings.promptCaching ?? true;
  const apiKey = settings.client ? undefined : (settings.apiKey ?? process.env.ANTHROPIC_API_KEY);
  if (!settings.client && !apiKey) {
    throw new ModelCallError(
      '@rlm/anthropic: no API key; set ANTHROPIC_API_KEY (or pass apiKey to createAnthropicModel)',
      { reason: 'authentication' },
    );
  }
  checkSetting('maxRetries', settings.maxRetries, 0);
  checkSetting('timeoutMs', settings.timeoutMs, 1);
  checkSetting('maxRetryAfterMs', settings.maxRetryAfterMs, 0);
  checkSetting('maxResponseBytes', settings.maxResponseBytes, 1);
  const maxResponseBytes = settings.maxResponseBytes ?? defaultMaxResponseBytes;
  const client =
    settings.client ??
    new Anthropic({
      apiKey,
      ...(settings.baseURL ? { baseURL: settings.baseURL } : {}),
      maxRetries: 0,
      timeout: settings.timeoutMs ?? defaultAnthropicTimeoutMs,
      fetch: settings.fetch ?? keepAliveFetch,
    });
  const maxRetries =
    settings.maxRetries ?? (settings.client ? client.maxRetries : defaultAnthropicMaxRetries);
  const timeoutMs = settings.timeoutMs ?? client.timeout;
  const maxRetryAfterMs = settings.maxRetryAfterMs ?? defaultAnthropicMaxRetryAfterMs;
  const secrets = [apiKey, client.apiKey, client.authToken];

  const stream = settings.stream ?? true;

  /**
   * One attempt. Unstreamed, bounded by `timeoutMs` from the request to the body's last byte;
   * streamed, by `timeoutMs` until the first event and between two events.
   */
  async function attempt(
    body: ReturnType<typeof toAnthropicRequest>,
    signal: AbortSignal | undefined,
    onText: ((delta: string) => void) | undefined,
  ): Promise<GenerateResult> {
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    let events = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(
        () => controller.abort(new AttemptTimeoutError(timeoutMs, events, 'events')),
        timeoutMs,
      );
    };
    arm();
    try {
      // The SDK's own timer (headers only) is a backstop a little later than ours, which also
      // covers the body. An explicit timeout keeps the SDK from refusing large max_tokens.
      const answered = await client.messages
        .create(stream ? { ...body, stream: true } : body, {
          maxRetries: 0,
          timeout: timeoutMs + sdkTimeoutSlackMs,
          signal: controller.signal,
        })
        .asResponse();
      const response = limitResponseBytes(answered, maxResponseBytes, (error) =>
        controller.abort(error),
      );
      const eventStream = /^text\/event-stream\b/i.test(response.headers.get('content-type') ?? '');
      if (stream && eventStream) {
        const message = await readMessageStream(response, {
          onText,
          onEvent: () => {
            events += 1;
            arm();
          },
        });
        return fromAnthropicMessage(message);
      }
      // Unstreamed, or a server that answered a streamed request with one body.
      const result = fromAnthropicMessage(await readMessageBody(response));
      if (result.text !== '') {
        try {
          // The whole text at once, as the contract of onText allows.
          onText?.(result.text);
        } catch {
          // Reporting text is best-effort.
        }
      }
      return result;
    } catch (error) {
      const reason: unknown = controller.signal.reason;
      throw reason instanceof AttemptTimeoutError || reason instanceof ResponseTooLargeError
        ? reason
        : error;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  return {
    modelId: `anthropic:${model}`,
    supportsTools: true,
    withModel: (modelId) => createAnthropicModel({ ...settings, model: modelId }),
    async generate(request, options = {}) {
      const plain = toAnthropicRequest(request, { model, maxTokens });
      const body = promptCaching && !request.singleUse ? withCacheBreakpoints(plain) : plain;
      const { signal, onRetry } = options;
      return retryModelCall({
        attempt: () => attempt(body, signal, options.onText),
        judge,
        giveUp: (failure, _verdict, tried) =>
          toModelCallError(failure, { secrets, baseURL: client.baseURL, timeoutMs, ...tried }),
        maxRetries,
        maxRetryAfterMs,
        signal,
        onRetry,
      });
    },
  };
}

function checkSetting(name: string, value: number | undefined, minimum: number): void {
  if (value === undefined || (Number.isSafeInteger(value) && value >= minimum)) return;
  throw new ModelCallError(
    `@rlm/anthropic: ${name} must be a whole number of at least ${minimum} (got ${value}); fix the createAnthropicModel settings`,
    { reason: 'invalid-request' },
  );
}
