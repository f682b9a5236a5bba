import type { RunUsage } from '@rlm/core';
import type { ServedRequestError } from '../errors/served-request-error.js';
import type { ServedAnswer } from '../rlm-service.js';

/** What identifies one completion in every body and chunk. */
export interface CompletionIdentity {
  /** `chatcmpl-...` */
  readonly id: string;
  /** Seconds since the epoch. */
  readonly created: number;
  /** The model id the run used. */
  readonly model: string;
}

/**
 * The OpenAI `usage` of a run: `prompt_tokens` counts every input token (cache reads and writes
 * included, as OpenAI does), `prompt_tokens_details.cached_tokens` the cache reads. Extensions:
 * `cost_usd` (absent when no model call had a price) and `model_calls`.
 */
export function usageBody(usage: RunUsage) {
  const promptTokens = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
  return {
    prompt_tokens: promptTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: promptTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cacheReadTokens },
    ...(usage.costUsd === undefined ? {} : { cost_usd: usage.costUsd }),
    model_calls: usage.modelCalls,
  };
}

/**
 * The `rlm` extension of a completion: the run's id in the trace store, its steps and time, and
 * why it stopped short when it did.
 */
export function runExtension(answer: ServedAnswer) {
  return {
    ...(answer.runId === undefined ? {} : { run_id: answer.runId }),
    iterations: answer.iterations,
    duration_ms: Math.round(answer.durationMs),
    ...(answer.incomplete ? { incomplete: answer.incomplete } : {}),
  };
}

/** `stop`, or `length` when a budget or the iterations ran out (the answer is partial). */
export function finishReason(answer: ServedAnswer): 'stop' | 'length' {
  return answer.incomplete ? 'length' : 'stop';
}

/** A non-streamed `chat.completion` of one choice. */
export function chatCompletionBody(identity: CompletionIdentity, answer: ServedAnswer) {
  return {
    id: identity.id,
    object: 'chat.completion',
    created: identity.created,
    model: identity.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: answer.answer, refusal: null },
        logprobs: null,
        finish_reason: finishReason(answer),
      },
    ],
    usage: usageBody(answer.usage),
    rlm: runExtension(answer),
  };
}

/** A `chat.completion.chunk` with one choice, or none (`choices: []`) for the usage chunk. */
export function chatCompletionChunk(
  identity: CompletionIdentity,
  choice:
    | {
        readonly delta: { readonly role?: 'assistant'; readonly content?: string };
        readonly finishReason: 'stop' | 'length' | null;
      }
    | undefined,
  extra: Readonly<Record<string, unknown>> = {},
) {
  return {
    id: identity.id,
    object: 'chat.completion.chunk',
    created: identity.created,
    model: identity.model,
    choices:
      choice === undefined
        ? []
        : [{ index: 0, delta: choice.delta, logprobs: null, finish_reason: choice.finishReason }],
    ...extra,
  };
}

/** The OpenAI error body of a failed request. */
export function errorBody(error: ServedRequestError) {
  return {
    error: {
      message: error.message,
      type: error.type,
      param: error.param ?? null,
      code: error.code,
    },
  };
}
