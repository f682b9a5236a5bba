/**
 * Scripted replies of the fake Messages API server, and helpers that build them.
 */

import type { FakeStreamShape } from './to-message-stream-events.js';

/** A content block of a scripted message, in the Messages API's shape. */
export type FakeContentBlock =
  | { readonly type: 'text'; readonly text: string }
  | {
      readonly type: 'tool_use';
      /** Defaults to a fresh `toolu_fake_<n>` id. */
      readonly id?: string;
      readonly name: string;
      /** Sent as is; a real API always sends an object, a test may send anything. */
      readonly input: unknown;
    };

/** A Messages API `stop_reason`. */
export type FakeStopReason =
  | 'end_turn'
  | 'max_tokens'
  | 'stop_sequence'
  | 'tool_use'
  | 'pause_turn'
  | 'refusal'
  | 'model_context_window_exceeded';

/** Fields every reply accepts. */
export interface FakeReplyTiming {
  /** Wait this long (milliseconds) before answering; use it to trip client timeouts. */
  readonly delayMs?: number;
}

/** How the body of a 200 reply is sent (messages and raw bodies). */
export interface FakeBodyDelivery {
  /**
   * Send the status and headers at once, then wait this long (milliseconds) before the body:
   * a server that answers but is slow to finish (a client timeout must cover the body too).
   */
  readonly bodyDelayMs?: number;
  /**
   * Send only the first this many bytes of the body, then destroy the connection: a body cut
   * mid-stream. `content-length` still announces the whole body.
   */
  readonly cutAfterBytes?: number;
}

/**
 * How a message is sent to a request that asks to stream (`stream: true`), on top of
 * {@link FakeBodyDelivery} (`bodyDelayMs` holds the first event back; `cutAfterBytes` counts
 * the bytes of the event stream).
 */
export interface FakeStreamDelivery extends FakeStreamShape {
  /** Wait this long (milliseconds) before each event after the first. */
  readonly eventDelayMs?: number;
  /** Send only the first this many events, then destroy the connection: a stream cut mid-way. */
  readonly cutAfterEvents?: number;
  /** Send the first this many events, then nothing more, holding the connection open. */
  readonly hangAfterEvents?: number;
  /**
   * Send the first this many events, then an `error` event and end the stream, as the API does
   * when it fails mid-answer (the status stays 200).
   */
  readonly errorAfterEvents?: number;
  /** The `error` event's type. Default `overloaded_error`. */
  readonly errorType?: string;
  /** The `error` event's message. Default `Overloaded`. */
  readonly errorMessage?: string;
}

/** Answer 200 with a message: one JSON body, or server-sent events when the request streams. */
export interface FakeMessageReply extends FakeReplyTiming, FakeBodyDelivery {
  readonly kind: 'message';
  /** How the message is streamed when the request asks for it. */
  readonly stream?: FakeStreamDelivery;
  readonly content: readonly FakeContentBlock[];
  /** Defaults to `tool_use` when `content` has a `tool_use` block, else `end_turn`. */
  readonly stopReason?: FakeStopReason;
  /**
   * Token counts to report. Defaults estimate 4 characters a token: output from `content`;
   * input from the request's tools, system and messages, split by the emulated prompt cache
   * into uncached input, cache reads and cache writes. Scripted `inputTokens` replace the
   * cache's counts (cache fields then default to 0).
   */
  readonly usage?: {
    readonly inputTokens?: number;
    readonly outputTokens?: number;
    readonly cacheReadTokens?: number;
    readonly cacheWriteTokens?: number;
  };
}

/** Answer with an API error body `{type:'error', error:{type, message}}`. */
export interface FakeErrorReply extends FakeReplyTiming {
  readonly kind: 'error';
  /** HTTP status, e.g. 429, 500, 529. */
  readonly status: number;
  /** The API's error type, e.g. `rate_limit_error`. */
  readonly errorType: string;
  readonly message: string;
  /** Extra response headers, e.g. `{ 'retry-after': '1' }` or `{ 'x-should-retry': 'false' }`. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** Destroy the socket without answering, as a dropped connection. */
export interface FakeDroppedConnectionReply extends FakeReplyTiming {
  readonly kind: 'drop';
}

/** Answer with any status, content type and body: a proxy's HTML page, a JSON string, ... */
export interface FakeRawReply extends FakeReplyTiming, FakeBodyDelivery {
  readonly kind: 'raw';
  readonly status: number;
  /** The `content-type` header, e.g. `text/html; charset=utf-8`. */
  readonly contentType: string;
  readonly body: string;
}

/** Never answer: hold the connection open until the client gives up (a hung API). */
export interface FakeHangReply {
  readonly kind: 'hang';
}

/**
 * Answer 200 and never finish, as fast as the client reads: streamed, a text block whose deltas
 * never stop; unstreamed, a message body that never closes. For a client's cap on what it reads.
 */
export interface FakeEndlessReply {
  readonly kind: 'endless';
}

/** One scripted answer of the fake server. */
export type FakeReply =
  | FakeMessageReply
  | FakeErrorReply
  | FakeDroppedConnectionReply
  | FakeRawReply
  | FakeHangReply
  | FakeEndlessReply;

/** Options shared by the message helpers. */
export interface FakeMessageOptions extends FakeReplyTiming, FakeBodyDelivery {
  readonly stopReason?: FakeStopReason;
  readonly stream?: FakeStreamDelivery;
  readonly usage?: FakeMessageReply['usage'];
}

/** A message with the given content blocks. */
export function fakeMessage(
  content: readonly FakeContentBlock[],
  options: FakeMessageOptions = {},
): FakeMessageReply {
  return { kind: 'message', content, ...options };
}

/** A message with one text block; `stop_reason` defaults to `end_turn`. */
export function fakeText(text: string, options: FakeMessageOptions = {}): FakeMessageReply {
  return fakeMessage([{ type: 'text', text }], options);
}

/** Options of {@link fakeToolUse}. */
export interface FakeToolUseOptions extends FakeMessageOptions {
  /** The `tool_use` id; defaults to a fresh `toolu_fake_<n>`. */
  readonly id?: string;
  /** A text block sent before the tool call. */
  readonly text?: string;
}

/** A message that calls one tool; `stop_reason` defaults to `tool_use`. */
export function fakeToolUse(
  name: string,
  input: unknown,
  options: FakeToolUseOptions = {},
): FakeMessageReply {
  const { id, text, ...rest } = options;
  const call: FakeContentBlock = { type: 'tool_use', name, input, ...(id ? { id } : {}) };
  return fakeMessage(text ? [{ type: 'text', text }, call] : [call], rest);
}

/**
 * A message cut off by `max_tokens` while writing a tool call: the last block is a
 * `tool_use` whose input is whatever had been decoded (`{}` by default).
 */
export function fakeTruncatedToolUse(
  name: string,
  partialInput: unknown = {},
  options: Omit<FakeToolUseOptions, 'stopReason'> = {},
): FakeMessageReply {
  return fakeToolUse(name, partialInput, { ...options, stopReason: 'max_tokens' });
}

/** The API's error type for a status, as the real API answers it. */
const errorTypes: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  408: 'timeout_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

/** Options of {@link fakeError}. */
export interface FakeErrorOptions extends FakeReplyTiming {
  /** Defaults to the real API's type for the status (`api_error` for unknown ones). */
  readonly errorType?: string;
  /** Defaults to a message naming the type. */
  readonly message?: string;
  /** Seconds, sent as the `retry-after` header. */
  readonly retryAfterSeconds?: number;
  /** Extra response headers. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** An API error: 429 `rate_limit_error`, 500 `api_error`, 529 `overloaded_error`, ... */
export function fakeError(status: number, options: FakeErrorOptions = {}): FakeErrorReply {
  const {
    errorType = errorTypes[status] ?? 'api_error',
    message = `fake ${errorType}`,
    retryAfterSeconds,
    headers,
    delayMs,
  } = options;
  const retryAfter: Record<string, string> =
    retryAfterSeconds === undefined ? {} : { 'retry-after': `${retryAfterSeconds}` };
  return {
    kind: 'error',
    status,
    errorType,
    message,
    headers: { ...retryAfter, ...headers },
    delayMs,
  };
}

/** Destroys the connection without an answer (after `delayMs`, if given). */
export function fakeDroppedConnection(options: FakeReplyTiming = {}): FakeDroppedConnectionReply {
  return { kind: 'drop', ...options };
}

/** The same reply, sent after `delayMs` milliseconds. */
export function fakeDelay<Reply extends FakeReply>(delayMs: number, reply: Reply): Reply {
  return { ...reply, delayMs };
}

/** Options of {@link fakeRaw}. */
export interface FakeRawOptions extends FakeReplyTiming, FakeBodyDelivery {
  /** Defaults to 200. */
  readonly status?: number;
}

/** A body that is not the API's JSON, e.g. `fakeRaw('text/html', '<html>...')`. */
export function fakeRaw(
  contentType: string,
  body: string,
  options: FakeRawOptions = {},
): FakeRawReply {
  const { status = 200, ...rest } = options;
  return { kind: 'raw', status, contentType, body, ...rest };
}

/** A request that is never answered; the client's timeout has to end it. */
export function fakeHang(): FakeHangReply {
  return { kind: 'hang' };
}

/** An answer that never ends; the client's cap on what it reads has to end it. */
export function fakeEndless(): FakeEndlessReply {
  return { kind: 'endless' };
}
