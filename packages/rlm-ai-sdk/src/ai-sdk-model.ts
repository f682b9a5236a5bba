import {
  APICallError,
  type LanguageModelV2,
  type LanguageModelV2CallOptions,
  UnsupportedFunctionalityError,
} from '@ai-sdk/provider';
import {
  defaultMaxResponseBytes,
  formatDuration,
  isToolsRefusal,
  type LanguageModel,
  ModelCallError,
  type ModelCallErrorReason,
  ResponseByteLimit,
  ResponseTooLargeError,
  readRetryAfterMs,
  retryModelCall,
  scrubSecrets,
} from '@rlm/core';
import {
  type CollectedStream,
  collectAISDKStream,
  jsonBytes,
  StreamCutError,
} from './collect-ai-sdk-stream.js';
import { fromAISDKResult } from './from-ai-sdk-result.js';
import { toAISDKCallOptions } from './to-ai-sdk-call-options.js';

/** Retries of a transient fault (what the provider marks retryable, 429, 5xx): 2. */
export const defaultAISDKMaxRetries = 2;

/**
 * Time allowed, in milliseconds, for an answer to start and (streamed) for each silence in it:
 * 60 s.
 */
export const defaultAISDKTimeoutMs = 60_000;

/** The longest `retry-after` wait honoured, in milliseconds: 60 s. */
export const defaultAISDKMaxRetryAfterMs = 60_000;

export interface AISDKModelSettings {
  /** Output-token bound when a request sets none; unset leaves the provider's default. */
  readonly maxTokens?: number;
  /** Retries of transient faults (0 or more). Defaults to {@link defaultAISDKMaxRetries}. */
  readonly maxRetries?: number;
  /**
   * Milliseconds allowed, streamed, before the first stream part and between two parts (an
   * answer that keeps coming is never cut); not streamed, for the whole call. Defaults to
   * {@link defaultAISDKTimeoutMs}.
   */
  readonly timeoutMs?: number;
  /**
   * The longest `retry-after` wait honoured, in milliseconds; a longer one fails the call at
   * once. Defaults to {@link defaultAISDKMaxRetryAfterMs}.
   */
  readonly maxRetryAfterMs?: number;
  /**
   * Call `doStream` instead of `doGenerate` (default true), so `onText` sees the text as it
   * arrives and long answers never meet a provider's limits on non-streamed ones.
   */
  readonly stream?: boolean;
  /**
   * The most bytes of one answer taken, counted as its parts arrive (each part's JSON): past it
   * the attempt is cut (the provider's request aborted) and retried like a server fault, and
   * once retries run out the call fails saying so. With `stream: false` the provider has read
   * the whole body before it is counted: to cut a body that never ends there, give the provider
   * a `fetch` made by `limitFetchResponses` of `@rlm/core`. Defaults to `defaultMaxResponseBytes`
   * (8 MiB) of `@rlm/core`.
   */
  readonly maxResponseBytes?: number;
  /** Whether the model takes tools (default true; a refusal still falls back to text). */
  readonly supportsTools?: boolean;
  /**
   * The AI SDK provider the model came from (`openai` of `@ai-sdk/openai`, or one made by
   * `createOpenAI(...)`), so model code can choose another of its models per call
   * (`llm_query(prompt, { model })`): `withModel(id)` wraps `provider(id)` with these settings.
   * Without it the model has no `withModel`.
   */
  readonly provider?: (modelId: string) => LanguageModelV2;
  /**
   * Whether the provider's `inputTokens` include `cachedInputTokens` (OpenAI-style counts,
   * the AI SDK's convention). Default: true, except for providers whose name starts with
   * `anthropic`, whose counts leave cache reads out.
   */
  readonly inputIncludesCached?: boolean;
  /**
   * Secrets (API keys) to scrub from error messages, besides the adapter's own rule of never
   * attaching the provider's error as `cause`.
   */
  readonly secrets?: readonly string[];
}

/** One attempt of a call ran past `timeoutMs`, before any part or (streamed) between two. */
class AttemptTimeout extends Error {
  constructor(
    readonly timeoutMs: number,
    /** Stream parts received before the silence; 0 when nothing came. */
    readonly partsReceived: number,
  ) {
    super(`the attempt took longer than ${timeoutMs} ms`);
    this.name = 'AttemptTimeout';
  }
}

interface Failure {
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly reason: ModelCallErrorReason;
  readonly status: number | undefined;
  /** One line, completing "the provider ...". */
  readonly detail: string;
}

function oneLine(text: string, maxLength = 300): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > maxLength ? `${line.slice(0, maxLength)}...` : line;
}

function reasonForStatus(status: number, message: string): ModelCallErrorReason {
  if (status === 401 || status === 403) return 'authentication';
  if (status === 429) return 'rate-limited';
  if (status === 408) return 'timeout';
  if (status >= 500 || status === 409) return 'server';
  return isToolsRefusal(message) ? 'tools-unsupported' : 'invalid-request';
}

function classify(error: unknown): Failure {
  if (error instanceof ResponseTooLargeError) {
    return {
      retryable: true,
      retryAfterMs: undefined,
      reason: 'server',
      status: undefined,
      detail: error.retryDetail,
    };
  }
  if (error instanceof AttemptTimeout) {
    return {
      retryable: true,
      retryAfterMs: undefined,
      reason: 'timeout',
      status: undefined,
      detail:
        error.partsReceived === 0
          ? `did not answer within ${formatDuration(error.timeoutMs)}`
          : `went silent for ${formatDuration(error.timeoutMs)} mid-answer, after ${error.partsReceived} stream parts`,
    };
  }
  if (error instanceof StreamCutError) {
    return {
      retryable: true,
      retryAfterMs: undefined,
      reason: 'network',
      status: undefined,
      detail: `stopped mid-answer (${oneLine(error.message)})`,
    };
  }
  if (UnsupportedFunctionalityError.isInstance(error)) {
    return {
      retryable: false,
      retryAfterMs: undefined,
      reason: /tool/i.test(error.functionality) ? 'tools-unsupported' : 'invalid-request',
      status: undefined,
      detail: `does not support ${oneLine(error.functionality)}`,
    };
  }
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    const message = oneLine(error.message);
    if (status === undefined) {
      return {
        retryable: error.isRetryable,
        retryAfterMs: undefined,
        reason: 'network',
        status,
        detail: `could not be reached (${message})`,
      };
    }
    const headers = new Headers(error.responseHeaders ?? {});
    return {
      retryable: error.isRetryable || status === 429 || status >= 500,
      retryAfterMs: readRetryAfterMs(headers),
      reason: reasonForStatus(status, message),
      status,
      detail: `answered ${status}: ${message}`,
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  return {
    retryable: false,
    retryAfterMs: undefined,
    reason: isToolsRefusal(message) ? 'tools-unsupported' : 'unknown',
    status: undefined,
    detail: `failed: ${oneLine(message)}`,
  };
}

function checkSetting(name: string, value: number | undefined, minimum: number): void {
  if (value === undefined || (Number.isSafeInteger(value) && value >= minimum)) return;
  throw new ModelCallError(
    `@rlm/ai-sdk: ${name} must be a whole number of at least ${minimum} (got ${value}); fix the createAISDKModel settings`,
    { reason: 'invalid-request' },
  );
}

/**
 * Wraps a Vercel AI SDK language model (provider specification v2, what `ai@5` and its
 * providers implement: `@ai-sdk/openai`, `@ai-sdk/google`, `@ai-sdk/amazon-bedrock`,
 * `@ai-sdk/mistral`, `@ai-sdk/groq`, ...) as an rlm {@link LanguageModel}, calling its
 * `doStream` (or `doGenerate` with `stream: false`). Transient faults (what the provider marks retryable, 429, 5xx, an attempt past
 * `timeoutMs`) are retried here, each wait announced through `options.onRetry`; the rest reject
 * with a one-line `ModelCallError` without the provider's error as `cause`. A refusal of tools
 * is `tools-unsupported`. Aborting `options.signal` rejects with the signal's reason.
 * `modelId` is `<provider>:<model id>`, e.g. `openai.chat:gpt-4.1`.
 *
 * @throws {ModelCallError} when a setting is not a whole number in range or the model does
 * not implement specification v2.
 */
export function createAISDKModel(
  model: LanguageModelV2,
  settings: AISDKModelSettings = {},
): LanguageModel {
  if (model?.specificationVersion !== 'v2') {
    throw new ModelCallError(
      `@rlm/ai-sdk: the model implements specification ${JSON.stringify(model?.specificationVersion)}, not v2; use a provider package of AI SDK 5 (e.g. @ai-sdk/openai@2)`,
      { reason: 'invalid-request' },
    );
  }
  checkSetting('maxRetries', settings.maxRetries, 0);
  checkSetting('timeoutMs', settings.timeoutMs, 1);
  checkSetting('maxRetryAfterMs', settings.maxRetryAfterMs, 0);
  checkSetting('maxTokens', settings.maxTokens, 1);
  checkSetting('maxResponseBytes', settings.maxResponseBytes, 1);
  const maxResponseBytes = settings.maxResponseBytes ?? defaultMaxResponseBytes;
  const maxRetries = settings.maxRetries ?? defaultAISDKMaxRetries;
  const timeoutMs = settings.timeoutMs ?? defaultAISDKTimeoutMs;
  const maxRetryAfterMs = settings.maxRetryAfterMs ?? defaultAISDKMaxRetryAfterMs;
  const inputIncludesCached =
    settings.inputIncludesCached ?? !model.provider.toLowerCase().startsWith('anthropic');
  const secrets = settings.secrets ?? [];
  const modelId = `${model.provider}:${model.modelId}`;

  const streaming = settings.stream ?? true;

  /** One call of the model, `doStream` read to its end or `doGenerate`. */
  async function call(
    options: LanguageModelV2CallOptions,
    onText: ((delta: string) => void) | undefined,
    onPart: () => void,
  ): Promise<CollectedStream> {
    const limit = new ResponseByteLimit(maxResponseBytes);
    if (streaming) {
      const { stream } = await model.doStream(options);
      return collectAISDKStream(stream, onText, onPart, limit);
    }
    const result = await model.doGenerate(options);
    limit.count(jsonBytes(result.content));
    const text = result.content
      .flatMap((part) => (part.type === 'text' ? [part.text] : []))
      .join('');
    if (text !== '') {
      try {
        // Not streamed: the whole text at once, as the contract of onText allows.
        onText?.(text);
      } catch {
        // Reporting text is best-effort.
      }
    }
    return result;
  }

  async function attempt(
    options: ReturnType<typeof toAISDKCallOptions>,
    signal: AbortSignal | undefined,
    onText: ((delta: string) => void) | undefined,
  ) {
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    let partsReceived = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(
        () => controller.abort(new AttemptTimeout(timeoutMs, partsReceived)),
        timeoutMs,
      );
    };
    arm();
    // Streamed, each part restarts the clock: timeoutMs bounds silences, not long answers.
    const onPart = () => {
      partsReceived += 1;
      arm();
    };
    try {
      const aborted = new Promise<never>((_, reject) => {
        controller.signal.addEventListener('abort', () => reject(controller.signal.reason), {
          once: true,
        });
      });
      // A provider that ignores the signal still cannot hold the call past the abort.
      const result = await Promise.race([
        call({ ...options, abortSignal: controller.signal }, onText, onPart),
        aborted,
      ]);
      return fromAISDKResult(result, inputIncludesCached);
    } catch (error) {
      // Past the cap (counted here, or by a provider's limited fetch, which wraps it), the
      // provider's request is aborted too: nothing more is read.
      const tooLarge = ResponseTooLargeError.findIn(error);
      if (tooLarge) {
        controller.abort(tooLarge);
        throw tooLarge;
      }
      const reason: unknown = controller.signal.reason;
      throw reason instanceof AttemptTimeout ? reason : error;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  const { provider } = settings;
  return {
    modelId,
    supportsTools: settings.supportsTools ?? true,
    ...(provider ? { withModel: (id: string) => createAISDKModel(provider(id), settings) } : {}),
    async generate(request, options = {}) {
      const callOptions = toAISDKCallOptions(request, { maxTokens: settings.maxTokens });
      const { signal, onRetry } = options;
      return retryModelCall({
        attempt: () => attempt(callOptions, signal, options.onText),
        judge: (error) => {
          const failure = classify(error);
          return {
            failure,
            retryable: failure.retryable,
            retryAfterMs: failure.retryAfterMs,
            retry: {
              reason: failure.reason,
              ...(failure.status === undefined ? {} : { status: failure.status }),
              detail: scrubSecrets(failure.detail, secrets),
            },
          };
        },
        giveUp: (error, { failure }, { attempts, elapsedMs, refusedWait }) => {
          const fail = (
            message: string,
            extra: Partial<ConstructorParameters<typeof ModelCallError>[1]> = {},
          ) =>
            new ModelCallError(scrubSecrets(`@rlm/ai-sdk: ${modelId} ${message}`, secrets), {
              status: failure.status,
              retryable: failure.retryable,
              reason: failure.reason,
              ...extra,
            });
          if (!failure.retryable) return fail(`${failure.detail}.`);
          if (refusedWait) {
            return fail(
              `${failure.detail}, and asked to wait ${formatDuration(refusedWait.retryAfterMs)} before a retry, longer than maxRetryAfterMs (${refusedWait.maxRetryAfterMs} ms) allows. Try again later or raise maxRetryAfterMs.`,
              { settings: ['maxRetryAfterMs'] },
            );
          }
          const tried =
            attempts === 1
              ? `gave up after 1 attempt (${formatDuration(elapsedMs)})`
              : `gave up after ${attempts} attempts over ${formatDuration(elapsedMs)}`;
          if (error instanceof ResponseTooLargeError) {
            return fail(
              `${error.failureDetail}; ${tried}. Raise maxResponseBytes, or check the provider's base URL (an answer that never ends is cut at the cap).`,
              {
                settings: ['maxResponseBytes'],
              },
            );
          }
          const timedOut = failure.reason === 'timeout';
          const advice = timedOut
            ? 'Raise timeoutMs or maxRetries, or try again later.'
            : 'Try again later or raise maxRetries.';
          return fail(`${failure.detail}; ${tried}. ${advice}`, {
            settings: timedOut ? ['timeoutMs', 'maxRetries'] : ['maxRetries'],
          });
        },
        maxRetries,
        maxRetryAfterMs,
        signal,
        onRetry,
      });
    },
  };
}
