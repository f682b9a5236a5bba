import type { ModelCallErrorReason } from './errors/model-call-error.js';

/**
 * The narrow model interface every adapter implements. Provider-neutral: an adapter
 * translates these shapes to and from its provider's wire format.
 */

/** A JSON Schema object describing a tool's input. */
export type JsonSchema = { readonly [key: string]: unknown };

/** A tool the model may call. */
export interface ToolDefinition {
  /** Tool name, `^[a-zA-Z0-9_-]{1,64}$`. */
  readonly name: string;
  /** What the tool does, in words the model reads. */
  readonly description: string;
  /** JSON Schema (type `object`) for the tool's input. */
  readonly inputSchema: JsonSchema;
}

/** A tool call the model made. */
export interface ToolCall {
  /** Provider-assigned id, echoed back in the matching {@link ToolResultPart}. */
  readonly id: string;
  readonly name: string;
  /**
   * The decoded input. `undefined` when the provider's payload did not decode (for example
   * cut off by `max_tokens`); `inputError` then says why.
   */
  readonly input: unknown;
  /** Set when `input` could not be decoded. */
  readonly inputError?: string;
}

export interface TextPart {
  readonly type: 'text';
  readonly text: string;
}

export interface ToolCallPart {
  readonly type: 'tool-call';
  readonly call: ToolCall;
}

export interface ToolResultPart {
  readonly type: 'tool-result';
  /** The {@link ToolCall.id} this answers. */
  readonly toolCallId: string;
  readonly content: string;
  readonly isError?: boolean;
}

/** One conversation message. Adapters merge consecutive messages of the same role. */
export type Message =
  | { readonly role: 'user'; readonly content: string | readonly (TextPart | ToolResultPart)[] }
  | { readonly role: 'assistant'; readonly content: string | readonly (TextPart | ToolCallPart)[] };

/** Which tool the model must (or must not) call. */
export type ToolChoice = 'auto' | 'none' | { readonly tool: string };

export interface GenerateRequest {
  /** The system prompt. */
  readonly system: string;
  /** The conversation; must start with a user message. */
  readonly messages: readonly Message[];
  /** Tools offered to the model. Ignored by adapters whose `supportsTools` is false. */
  readonly tools?: readonly ToolDefinition[];
  /** Defaults to `auto` when tools are given. */
  readonly toolChoice?: ToolChoice;
  /** Upper bound on output tokens for this response. */
  readonly maxTokens?: number;
  /**
   * True when no later request will start with this one's conversation (a single `llm_query`):
   * adapters with prompt caching then write nothing to the cache, since a cache write costs more
   * than plain input and would never be read. Unset for the steps of a loop.
   */
  readonly singleUse?: boolean;
}

/** Why the model stopped. */
export type StopReason = 'end' | 'max-tokens' | 'tool-call' | 'stop-sequence' | 'other';

/** Token usage of one or more model calls. */
export interface Usage {
  /** Input tokens billed at the full price (not read from or written to a prompt cache). */
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Input tokens read from the provider's prompt cache; absent when the provider says nothing. */
  readonly cacheReadTokens?: number;
  /** Input tokens written to the provider's prompt cache; absent when the provider says nothing. */
  readonly cacheWriteTokens?: number;
}

export interface GenerateResult {
  /** All text blocks of the response joined, possibly empty. */
  readonly text: string;
  readonly toolCalls: readonly ToolCall[];
  readonly stopReason: StopReason;
  readonly usage: Usage;
}

/** A failed attempt of a model call that the adapter retries after a wait. */
export interface ModelRetry {
  /** The attempt about to be made: 2 for the first retry. */
  readonly attempt: number;
  /** Attempts allowed in all (retries + 1). */
  readonly maxAttempts: number;
  /** Milliseconds the adapter waits before that attempt. */
  readonly delayMs: number;
  /** Whether `delayMs` is what the API asked for (`retry-after`) rather than the backoff. */
  readonly requestedByApi: boolean;
  /** What went wrong with the failed attempt: `rate-limited`, `server`, `timeout`, `network`. */
  readonly reason: ModelCallErrorReason;
  /** The HTTP status of the failed attempt, when the API answered. */
  readonly status?: number;
  /**
   * What happened, one line for people, completing "the API ...": `answered 429
   * rate_limit_error`, `did not answer within 60 s`, `could not be reached (ECONNREFUSED)`.
   */
  readonly detail: string;
}

export interface GenerateOptions {
  /** Aborts the request; the promise then rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /**
   * Called with each piece of the response's text as it streams in, in order. Adapters that
   * do not stream call it once with the whole text (or not at all when there is none). A
   * retried request starts over: the callback may then see text again. A throw from the
   * callback is ignored.
   */
  readonly onText?: (delta: string) => void;
  /**
   * Called before each wait for a retry, so the wait can be shown; adapters that retry call it
   * once per retry, others never. A throw from the callback is ignored. When it returns a
   * promise, the next attempt also waits for it (the loop queues a rate-limited call for a
   * concurrency slot again); `retryModelCall` does so.
   */
  readonly onRetry?: (retry: ModelRetry) => unknown;
}

/** A chat model the RLM loop drives. */
export interface LanguageModel {
  /** A stable identifier, e.g. `anthropic:claude-sonnet-4-5`. */
  readonly modelId: string;
  /** Whether `tools` and `toolChoice` are honoured. */
  readonly supportsTools: boolean;
  /**
   * Produces one response. Rejects with a typed error (see `ModelCallError`) for faults the
   * adapter could not recover from; transient faults are retried inside the adapter.
   */
  generate(request: GenerateRequest, options?: GenerateOptions): Promise<GenerateResult>;
  /**
   * Optional: a model of the same provider and settings (client, credentials, endpoint,
   * retries) that answers as the model `modelId` (without a provider prefix), so model code can
   * choose a model per call (`llm_query(prompt, { model })`). Makes the model only: no request
   * is sent, and an id the provider does not serve fails on the first call. Adapters that
   * cannot make one leave it out.
   */
  withModel?(modelId: string): LanguageModel;
}
