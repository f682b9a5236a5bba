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
import OpenAI from 'openai';
import { fromChatCompletion } from './from-chat-completion.js';
import { MalformedCompletionError } from './malformed-completion-error.js';
import { StreamCutError } from './stream-cut-error.js';
import { type MaxTokensParameter, toChatRequest } from './to-chat-request.js';
import { rootCause, toModelCallError } from './to-model-call-error.js';

/** The OpenAI API's base URL, used when neither `baseURL` nor `OPENAI_BASE_URL` is set. */
export const openAIBaseURL = 'https://api.openai.com/v1';

/** Retries of a transient fault (429, 408, 409, 5xx, a dropped connection, a timeout): 2. */
export const defaultOpenAIMaxRetries = 2;

/**
 * Time allowed, in milliseconds, for an answer to start and (streamed) for each silence in it:
 * 60 s (raise it for slow local models).
 */
export const defaultOpenAITimeoutMs = 60_000;

/** The longest `retry-after` wait honoured, in milliseconds: 60 s. */
export const defaultOpenAIMaxRetryAfterMs = 60_000;

/** The API key sent to a server other than the OpenAI API when none is set: local servers ignore it. */
export const keylessPlaceholder = 'no-key';

export interface OpenAIModelSettings {
  /** The model id the server knows, e.g. `gpt-4.1` or `qwen2.5-coder:7b`. Required. */
  readonly model: string;
  /**
   * The server's base URL, ending where `/chat/completions` is served (usually `/v1`), e.g.
   * `http://127.0.0.1:11434/v1` for Ollama. Defaults to `OPENAI_BASE_URL`, else
   * {@link openAIBaseURL}.
   */
  readonly baseURL?: string;
  /**
   * API key. Defaults to `OPENAI_API_KEY`. Required for the OpenAI API; for any other base URL
   * a missing key sends {@link keylessPlaceholder}. Never appears in error messages.
   */
  readonly apiKey?: string;
  /**
   * The output-token bound when a request sets no `maxTokens`; unset leaves the server's
   * default.
   */
  readonly maxTokens?: number;
  /**
   * The body field that carries the bound: `max_completion_tokens` (what the OpenAI API wants;
   * its reasoning models refuse the other) or `max_tokens` (what every compatible server
   * reads). Defaults to `max_completion_tokens` for the OpenAI API and `max_tokens` for any
   * other base URL.
   */
  readonly maxTokensParameter?: MaxTokensParameter;
  /**
   * Retries of transient faults (0 or more). Each waits as long as `retry-after` says (up to
   * `maxRetryAfterMs`), else backs off: 0.5 s, doubling, at most 8 s. Defaults to
   * {@link defaultOpenAIMaxRetries}.
   */
  readonly maxRetries?: number;
  /**
   * Milliseconds allowed, streamed, before the first chunk and between two chunks (a stream
   * that goes silent that long is dropped, while one that keeps coming is never cut);
   * unstreamed, from the request to the last byte of the answer. A timed-out attempt is
   * retried. Defaults to {@link defaultOpenAITimeoutMs}.
   */
  readonly timeoutMs?: number;
  /**
   * The longest wait before a retry that the server may ask for with `retry-after`, in
   * milliseconds; when it asks for more, the call fails at once saying so. Defaults to
   * {@link defaultOpenAIMaxRetryAfterMs}.
   */
  readonly maxRetryAfterMs?: number;
  /**
   * The most bytes of one response read (streamed or not), counted as they arrive: past it the
   * attempt is cut and retried like a server fault, and once retries run out the call fails
   * saying so. Defaults to `defaultMaxResponseBytes` (8 MiB) of `@rlm/core`.
   */
  readonly maxResponseBytes?: number;
  /**
   * Whether the model takes tools (default true). Leave it on even for servers that refuse
   * them: their refusal is classified `tools-unsupported` and the loop falls back to its text
   * protocol once; set false to skip that first refused request.
   */
  readonly supportsTools?: boolean;
  /**
   * Stream responses (server-sent events, `stream_options.include_usage`), so `onText` sees the
   * text as it arrives and long answers never meet a server's limits on non-streamed ones.
   * Default true; set false for a server that cannot stream.
   */
  readonly stream?: boolean;
  /**
   * The provider named in `modelId` (`<provider>:<model>`), e.g. `ollama` or `vllm`; default
   * `openai`. Prices and traces read it; requests do not.
   */
  readonly provider?: string;
  /**
   * The `fetch` requests go through. Defaults to `keepAliveFetch` of `@rlm/core` (Node's HTTP
   * client over a keep-alive connection pool, cheaper per request than the global `fetch`);
   * pass `fetch` itself, or your own (a proxy, a recorder), to replace it. Ignored with `client`,
   * which keeps its own.
   */
  readonly fetch?: typeof fetch;
  /** A ready client; `apiKey`, `baseURL` and `fetch` are then ignored. */
  readonly client?: OpenAI;
}

function judge(error: unknown): RetryVerdict {
  if (error instanceof ResponseTooLargeError) {
    return {
      retryable: true,
      retryAfterMs: undefined,
      retry: { reason: 'server', detail: error.retryDetail },
    };
  }
  if (error instanceof AttemptTimeoutError || error instanceof OpenAI.APIConnectionTimeoutError) {
    const detail =
      error instanceof AttemptTimeoutError ? error.retryDetail : 'did not answer in time';
    return { retryable: true, retryAfterMs: undefined, retry: { reason: 'timeout', detail } };
  }
  if (error instanceof MalformedCompletionError) {
    return {
      retryable: true,
      retryAfterMs: undefined,
      retry: { reason: 'server', detail: `answered with ${error.problem}` },
    };
  }
  if (error instanceof StreamCutError) {
    return {
      retryable: true,
      retryAfterMs: undefined,
      retry: { reason: 'network', detail: `stopped mid-answer (${error.problem})` },
    };
  }
  if (error instanceof OpenAI.APIUserAbortError) {
    return { retryable: false, retryAfterMs: undefined, retry: { reason: 'aborted', detail: '' } };
  }
  if (error instanceof OpenAI.APIConnectionError) {
    return {
      retryable: true,
      retryAfterMs: undefined,
      retry: { reason: 'network', detail: `could not be reached (${rootCause(error)})` },
    };
  }
  if (error instanceof OpenAI.APIError && error.status !== undefined) {
    const status = error.status;
    return {
      retryable: isRetryableStatus(status),
      retryAfterMs: readRetryAfterMs(error.headers),
      retry: {
        reason: status === 429 ? 'rate-limited' : status === 408 ? 'timeout' : 'server',
        status,
        detail: `answered ${status}${error.type ? ` ${error.type}` : ''}`,
      },
    };
  }
  return { retryable: false, retryAfterMs: undefined, retry: { reason: 'unknown', detail: '' } };
}

/** Calls `onText`, ignoring a throw: reporting text is best-effort. */
function emitText(onText: ((delta: string) => void) | undefined, delta: string): void {
  try {
    onText?.(delta);
  } catch {
    // A broken listener does not fail the call.
  }
}

/**
 * Reads a Chat Completions stream to its end into the shape of a completion: the text (each
 * piece passed to `onText` as it arrives), the tool calls assembled by index from their
 * pieces, the last finish reason, and the usage chunk.
 *
 * @throws {MalformedCompletionError} when the stream held no chunk.
 * @throws {StreamCutError} when the connection was lost mid-stream.
 */
async function collectStream(
  chunks: AsyncIterable<OpenAI.Chat.ChatCompletionChunk>,
  onText: ((delta: string) => void) | undefined,
  onChunk: () => void,
): Promise<unknown> {
  let content = '';
  let finishReason: string | null = null;
  let usage: unknown;
  let received = false;
  const calls: { id?: string; name?: string; arguments: string }[] = [];
  const iterator = chunks[Symbol.asyncIterator]();
  for (;;) {
    let next: IteratorResult<OpenAI.Chat.ChatCompletionChunk>;
    try {
      next = await iterator.next();
    } catch (error) {
      // An error event from the server stays an API error; a connection lost mid-stream is cut.
      if (error instanceof OpenAI.APIError) throw error;
      throw new StreamCutError(rootCause(error));
    }
    if (next.done) break;
    const chunk = next.value;
    received = true;
    onChunk();
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    const { delta } = choice;
    if (typeof delta?.content === 'string' && delta.content !== '') {
      content += delta.content;
      emitText(onText, delta.content);
    }
    for (const call of delta?.tool_calls ?? []) {
      calls[call.index] ??= { arguments: '' };
      const slot = calls[call.index]!;
      if (call.id) slot.id = call.id;
      if (call.function?.name) slot.name = call.function.name;
      if (call.function?.arguments) slot.arguments += call.function.arguments;
    }
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }
  if (!received) throw new MalformedCompletionError('an empty stream');
  if (finishReason === null) throw new StreamCutError('the stream ended before a finish_reason');
  const toolCalls = calls.flatMap((call) =>
    call ? [{ id: call.id, function: { name: call.name, arguments: call.arguments } }] : [],
  );
  return {
    choices: [
      {
        message: { content, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) },
        finish_reason: finishReason,
      },
    ],
    usage,
  };
}

function checkSetting(name: string, value: number | undefined, minimum: number): void {
  if (value === undefined || (Number.isSafeInteger(value) && value >= minimum)) return;
  throw new ModelCallError(
    `@rlm/openai: ${name} must be a whole number of at least ${minimum} (got ${value}); fix the createOpenAIModel settings`,
    { reason: 'invalid-request' },
  );
}

/**
 * The `fetch` a client sends with: its `fetch` option (an injected client may have its own),
 * else the global one. The SDK keeps it on the instance without a public accessor.
 */
function fetchOf(client: OpenAI): typeof fetch {
  const own: unknown = Reflect.get(client, 'fetch');
  return typeof own === 'function' ? (own as typeof fetch) : fetch;
}

/**
 * Where an attempt puts its `onExceeded` in the request's `fetchOptions`, which the SDK hands to
 * `fetch` with the rest of the request: one client serves every attempt (making one per attempt
 * cost more than the request itself on loopback).
 */
const exceededHook = Symbol('@rlm/openai: onExceeded');

type ExceededHook = (error: ResponseTooLargeError) => void;

/**
 * `fetchFunction` with each response limited to `maxBytes` (see `limitResponseBytes`), calling
 * the attempt's hook found in the request first when the limit is passed.
 */
function limitedFetch(fetchFunction: typeof fetch, maxBytes: number): typeof fetch {
  return async (input, init) => {
    const hook = (init as Record<symbol, ExceededHook | undefined> | undefined)?.[exceededHook];
    return limitResponseBytes(await fetchFunction(input, init), maxBytes, hook);
  };
}

function isOpenAIHost(baseURL: string): boolean {
  try {
    return new URL(baseURL).hostname === 'api.openai.com';
  } catch {
    return false;
  }
}

/**
 * Creates a {@link LanguageModel} that speaks the OpenAI Chat Completions API, streamed by
 * default (each piece of text goes to `options.onText` as it arrives):
 * the OpenAI API itself or any compatible server (vLLM, Ollama, llama.cpp's server, LM Studio).
 * Requests become messages the API accepts (see `toChatMessages`); tools are functions, and a
 * named `toolChoice` forces that function. Transient faults (429, 408, 409, 5xx, a dropped
 * connection, an attempt past `timeoutMs`, a 2xx body that is not a completion) are retried
 * here, each wait announced through `options.onRetry`; anything else, and transient faults once
 * retries run out, reject with a one-line `ModelCallError` that never holds the key. A refusal
 * of tools has the reason `tools-unsupported`. Aborting `options.signal` rejects with the
 * signal's reason and is never retried. `modelId` is `<provider>:<model>` (`openai:` by default).
 *
 * @throws {ModelCallError} when the OpenAI API is the target and no key is set, or a setting
 * is not a whole number in range.
 */
export function createOpenAIModel(settings: OpenAIModelSettings): LanguageModel {
  const { model } = settings;
  if (typeof model !== 'string' || model.trim() === '') {
    throw new ModelCallError(
      '@rlm/openai: no model id; pass model to createOpenAIModel (e.g. gpt-4.1)',
      { reason: 'invalid-request' },
    );
  }
  checkSetting('maxRetries', settings.maxRetries, 0);
  checkSetting('timeoutMs', settings.timeoutMs, 1);
  checkSetting('maxRetryAfterMs', settings.maxRetryAfterMs, 0);
  checkSetting('maxTokens', settings.maxTokens, 1);
  checkSetting('maxResponseBytes', settings.maxResponseBytes, 1);
  const maxResponseBytes = settings.maxResponseBytes ?? defaultMaxResponseBytes;
  const baseURL = settings.client
    ? settings.client.baseURL
    : settings.baseURL || process.env.OPENAI_BASE_URL || openAIBaseURL;
  const toOpenAI = isOpenAIHost(baseURL);
  const givenKey = settings.apiKey || process.env.OPENAI_API_KEY || undefined;
  if (!settings.client && !givenKey && toOpenAI) {
    throw new ModelCallError(
      '@rlm/openai: no API key; set OPENAI_API_KEY (or pass apiKey to createOpenAIModel)',
      { reason: 'authentication' },
    );
  }
  const timeoutMs = settings.timeoutMs ?? defaultOpenAITimeoutMs;
  const sdkClient =
    settings.client ??
    new OpenAI({
      apiKey: givenKey ?? keylessPlaceholder,
      baseURL,
      maxRetries: 0,
      timeout: timeoutMs,
      fetch: settings.fetch ?? keepAliveFetch,
    });
  const maxRetries = settings.maxRetries ?? defaultOpenAIMaxRetries;
  const maxRetryAfterMs = settings.maxRetryAfterMs ?? defaultOpenAIMaxRetryAfterMs;
  const maxTokensParameter =
    settings.maxTokensParameter ?? (toOpenAI ? 'max_completion_tokens' : 'max_tokens');
  const secrets = [givenKey, sdkClient.apiKey];

  const stream = settings.stream ?? true;
  // Every byte of an answer is counted as it arrives: past maxResponseBytes the attempt is
  // aborted with that error and the connection dropped.
  const client = sdkClient.withOptions({
    fetch: limitedFetch(fetchOf(sdkClient), maxResponseBytes),
  });

  /** One attempt, bounded by `timeoutMs` from the request to the body's last byte. */
  async function attempt(
    body: ReturnType<typeof toChatRequest>,
    signal: AbortSignal | undefined,
    onText: ((delta: string) => void) | undefined,
  ): Promise<GenerateResult> {
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    let chunksReceived = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(
        () => controller.abort(new AttemptTimeoutError(timeoutMs, chunksReceived, 'chunks')),
        timeoutMs,
      );
    };
    arm();
    const onExceeded: ExceededHook = (error) => controller.abort(error);
    try {
      // The SDK's own timer is a backstop a little later than ours, which also covers the body.
      const requestOptions = {
        maxRetries: 0,
        timeout: timeoutMs + 1_000,
        signal: controller.signal,
        // Read by `limitedFetch`; the key is a symbol, so no request field is touched.
        fetchOptions: { [exceededHook]: onExceeded } as Record<string, never>,
      };
      if (!stream) {
        const completion: unknown = await client.chat.completions.create(body, requestOptions);
        const result = fromChatCompletion(completion);
        // Not streamed: the whole text at once, as the contract of onText allows.
        if (result.text !== '') emitText(onText, result.text);
        return result;
      }
      const chunks = await client.chat.completions.create(
        { ...body, stream: true, stream_options: { include_usage: true } },
        requestOptions,
      );
      // Streamed, timeoutMs bounds each silence, so an answer that keeps coming is never cut.
      const onChunk = () => {
        chunksReceived += 1;
        arm();
      };
      const collected = await collectStream(chunks, onText, onChunk);
      // The SDK ends a stream quietly when its signal aborts: a timeout or an abort mid-answer
      // must not pass for a short answer.
      if (controller.signal.aborted) throw controller.signal.reason;
      return fromChatCompletion(collected);
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
    modelId: `${settings.provider ?? 'openai'}:${model}`,
    supportsTools: settings.supportsTools ?? true,
    withModel: (modelId) => createOpenAIModel({ ...settings, model: modelId }),
    async generate(request, options = {}) {
      const body = toChatRequest(request, {
        model,
        maxTokens: settings.maxTokens,
        maxTokensParameter,
      });
      const { signal, onRetry } = options;
      return retryModelCall({
        attempt: () => attempt(body, signal, options.onText),
        judge,
        giveUp: (failure, _verdict, tried) =>
          toModelCallError(failure, {
            secrets,
            baseURL: sdkClient.baseURL,
            timeoutMs,
            ...tried,
            ...(settings.baseURL ? { baseURLSource: 'the baseURL setting' } : {}),
            ...(settings.provider && settings.provider !== 'openai'
              ? { server: `the ${settings.provider} server` }
              : {}),
          }),
        maxRetries,
        maxRetryAfterMs,
        signal,
        onRetry,
      });
    },
  };
}
