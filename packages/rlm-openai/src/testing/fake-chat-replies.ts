/**
 * Scripted replies of the fake Chat Completions server, and helpers that build them.
 */

/** A tool call of a scripted reply; `arguments` is sent as is (a JSON string). */
export interface FakeChatToolCall {
  /** Defaults to a fresh `call_fake_<n>` id. */
  readonly id?: string;
  readonly name: string;
  /** The function arguments as the API sends them: a JSON string (possibly invalid). */
  readonly arguments: string;
}

/** Token counts a scripted completion reports, in the API's own terms. */
export interface FakeChatUsage {
  /** All prompt tokens, cached ones included. */
  readonly promptTokens?: number;
  readonly completionTokens?: number;
  /** `prompt_tokens_details.cached_tokens`; omitted from the body when undefined. */
  readonly cachedTokens?: number;
}

/** Fields every reply accepts. */
export interface FakeChatTiming {
  /** Wait this long (milliseconds) before answering. */
  readonly delayMs?: number;
}

/** Answer 200 with a chat completion of one choice. */
export interface FakeChatCompletionReply extends FakeChatTiming {
  readonly kind: 'completion';
  /** The assistant's text; `null` is sent when absent. */
  readonly content?: string;
  readonly toolCalls?: readonly FakeChatToolCall[];
  /** Defaults to `tool_calls` when there are tool calls, else `stop`. */
  readonly finishReason?: 'stop' | 'length' | 'tool_calls' | 'content_filter';
  /**
   * Defaults estimate 4 characters a token: prompt tokens from the request's messages and
   * tools, completion tokens from the reply; no cached tokens.
   */
  readonly usage?: FakeChatUsage;
  /**
   * When the request streams: send only this many chunks, then destroy the connection (a
   * stream cut mid-way). Ignored for a request that does not stream.
   */
  readonly streamCutAfterChunks?: number;
  /**
   * When the request streams: send only this many chunks, then nothing more, holding the
   * connection open (a stream that goes silent). Ignored for a request that does not stream.
   */
  readonly streamHangAfterChunks?: number;
  /** When the request streams: wait this long (milliseconds) before each chunk after the first. */
  readonly streamChunkDelayMs?: number;
}

/** Answer with an API error body `{error: {message, type, param, code}}`. */
export interface FakeChatErrorReply extends FakeChatTiming {
  readonly kind: 'error';
  readonly status: number;
  /** The error's `type`, e.g. `rate_limit_exceeded`. */
  readonly errorType: string;
  readonly message: string;
  /** Extra response headers, e.g. `{ 'retry-after': '1' }`. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** Destroy the socket without answering. */
export interface FakeChatDroppedConnectionReply extends FakeChatTiming {
  readonly kind: 'drop';
}

/** Answer with any status, content type and body. */
export interface FakeChatRawReply extends FakeChatTiming {
  readonly kind: 'raw';
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

/** Never answer: hold the connection until the client gives up. */
export interface FakeChatHangReply {
  readonly kind: 'hang';
}

/**
 * Answer 200 and never finish, as fast as the client reads: streamed, chunks of text that never
 * stop; unstreamed, a completion body that never closes. For a client's cap on what it reads.
 */
export interface FakeChatEndlessReply {
  readonly kind: 'endless';
}

/** One scripted answer of the fake Chat Completions server. */
export type FakeChatReply =
  | FakeChatCompletionReply
  | FakeChatErrorReply
  | FakeChatDroppedConnectionReply
  | FakeChatRawReply
  | FakeChatHangReply
  | FakeChatEndlessReply;

/** Options of the completion helpers. */
export interface FakeChatCompletionOptions
  extends FakeChatTiming,
    Pick<
      FakeChatCompletionReply,
      'streamCutAfterChunks' | 'streamHangAfterChunks' | 'streamChunkDelayMs'
    > {
  readonly finishReason?: FakeChatCompletionReply['finishReason'];
  readonly usage?: FakeChatUsage;
}

/** A completion with text only; `finish_reason` defaults to `stop`. */
export function fakeChatText(
  text: string,
  options: FakeChatCompletionOptions = {},
): FakeChatCompletionReply {
  return { kind: 'completion', content: text, ...options };
}

/**
 * A completion that calls one function with `input` (JSON-encoded); `finish_reason` defaults
 * to `tool_calls`.
 */
export function fakeChatToolCall(
  name: string,
  input: unknown,
  options: FakeChatCompletionOptions & { readonly id?: string; readonly text?: string } = {},
): FakeChatCompletionReply {
  const { id, text, ...rest } = options;
  return {
    kind: 'completion',
    ...(text === undefined ? {} : { content: text }),
    toolCalls: [{ name, arguments: JSON.stringify(input), ...(id ? { id } : {}) }],
    ...rest,
  };
}

const errorTypes: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'invalid_api_key',
  403: 'permission_denied',
  404: 'not_found_error',
  429: 'rate_limit_exceeded',
  500: 'server_error',
  503: 'service_unavailable',
};

/** Options of {@link fakeChatError}. */
export interface FakeChatErrorOptions extends FakeChatTiming {
  /** Defaults to the usual type for the status (`server_error` for unknown ones). */
  readonly errorType?: string;
  /** Defaults to a message naming the type. */
  readonly message?: string;
  /** Seconds, sent as the `retry-after` header. */
  readonly retryAfterSeconds?: number;
  readonly headers?: Readonly<Record<string, string>>;
}

/** An API error of `status`. */
export function fakeChatError(
  status: number,
  options: FakeChatErrorOptions = {},
): FakeChatErrorReply {
  const errorType = options.errorType ?? errorTypes[status] ?? 'server_error';
  return {
    kind: 'error',
    status,
    errorType,
    message: options.message ?? `fake Chat Completions server: scripted ${errorType}`,
    headers: {
      ...(options.retryAfterSeconds === undefined
        ? {}
        : { 'retry-after': `${options.retryAfterSeconds}` }),
      ...options.headers,
    },
    ...(options.delayMs === undefined ? {} : { delayMs: options.delayMs }),
  };
}

/** Drop the connection without answering. */
export function fakeChatDroppedConnection(
  options: FakeChatTiming = {},
): FakeChatDroppedConnectionReply {
  return { kind: 'drop', ...options };
}

/** Never answer. */
export function fakeChatHang(): FakeChatHangReply {
  return { kind: 'hang' };
}

/** Any status, content type and body. */
export function fakeChatRaw(
  status: number,
  contentType: string,
  body: string,
  options: FakeChatTiming = {},
): FakeChatRawReply {
  return { kind: 'raw', status, contentType, body, ...options };
}

/** An answer that never ends; the client's cap on what it reads has to end it. */
export function fakeChatEndless(): FakeChatEndlessReply {
  return { kind: 'endless' };
}
