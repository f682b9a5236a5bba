/**
 * The trace of one run: what `reduceTrace` builds from a run's events, what the store keeps
 * and what the HTML viewer and the JSON lines show. Plain JSON: every field survives
 * `JSON.parse(JSON.stringify(trace))`. Times are milliseconds since the epoch, durations
 * milliseconds.
 */

import type { GenerateResult, Message, ToolChoice, ToolDefinition } from '@rlm/core';

/** The schema name and version every trace document carries. */
export const traceSchema = 'rlm-trace/1';

/** Tokens and, when the provider's usage carries it, cost. */
export interface TraceUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  readonly modelCalls: number;
  /**
   * US dollars, summed from the `costUsd` of the model calls' usage events. `undefined` when
   * no model call reported a cost (never guessed); a sum of the calls that reported one otherwise.
   */
  readonly costUsd?: number;
}

/** How a call or a run ended; `running` while it goes on or when its end was never seen. */
export type TraceStatus = 'running' | 'answered' | 'failed';

/** A warning the loop recovered from. */
export interface TraceWarning {
  readonly at: number;
  /** A stable code such as `submit-with-code`. */
  readonly code: string;
  readonly message: string;
}

/** One code block of a step. */
export interface TraceBlock {
  /** Position within the response, from 0. */
  readonly index: number;
  readonly code: string;
  readonly startedAt: number;
  /** What the code printed; `undefined` until it ran. */
  readonly output?: string;
  readonly error?: string;
  /**
   * What the model was shown of the block, when that is not simply the output and the error
   * (it was truncated or redacted).
   */
  readonly shownToModel?: string;
  /** Wall time of the block, host calls awaited included. */
  readonly durationMs?: number;
}

/** Retries of model calls before their answers (HTTP 429, 5xx, timeouts, dropped connections). */
export interface TraceRetries {
  /** Retries made. */
  readonly count: number;
  /** Milliseconds waited before them, in all. */
  readonly waitMs: number;
  /**
   * When the last retry started (its wait over): the attempts before it, failed, and the waits
   * between them took the time from the first request to then.
   */
  readonly lastAttemptAt: number;
}

/**
 * One model call that answered: its request as it was sent and its response. A step's request
 * repeats most of the step before it, so it is kept as a difference: `keptMessages` leading
 * messages of the call's previous step request, then `messages`; `system` only when it changed.
 * {@link expandModelCalls} gives back the whole requests.
 */
export interface TraceModelCall {
  /** When the response arrived. */
  readonly at: number;
  /** From the request to the whole response, retries and their waits included. */
  readonly durationMs: number;
  /** The model that answered, as its adapter names it. */
  readonly modelId: string;
  /**
   * The system prompt. Absent on a step's (or the forced final prompt's) request when it is the
   * same as the call's previous step request's.
   */
  readonly system?: string;
  /**
   * How many leading messages of the call's previous step request begin this one too (absent:
   * none; always absent on a host call's model calls).
   */
  readonly keptMessages?: number;
  /** The request's messages after the kept ones. */
  readonly messages: readonly Message[];
  readonly tools?: readonly ToolDefinition[];
  readonly toolChoice?: ToolChoice;
  readonly maxTokens?: number;
  /** What the model answered: text, tool calls, stop reason, usage. */
  readonly response: GenerateResult;
}

/** A host function called by model code (`llm_query`, `sub_rlm`, `store`, a tool, ...). */
export interface TraceHostCall {
  readonly requestId: string;
  readonly name: string;
  readonly startedAt: number;
  /** The start of the arguments (the prompt of `llm_query`). */
  readonly argumentsExcerpt?: string;
  /** `undefined` while pending. */
  readonly ok?: boolean;
  readonly durationMs?: number;
  /** The start of the result (the answer of `llm_query`). */
  readonly resultExcerpt?: string;
  readonly error?: string;
  /** The child call a `sub_rlm` started (none at the deepest level, where it is a plain call). */
  readonly childCallId?: string;
  /** Usage of the model calls that served it (`llm_query`, `llm_query_batched`). */
  readonly usage: TraceUsage;
  /** The model calls that served it, whole prompts and answers, in the order they answered. */
  readonly modelCalls?: readonly TraceModelCall[];
  /** Retries of those model calls. */
  readonly retries?: TraceRetries;
}

/** How a call finished. */
export interface TraceFinal {
  readonly at: number;
  /** `submit-tool`, `submit-code`, `final-var`, `final-text` or `extract`. */
  readonly source: string;
  /** The answer as text, cut to a few thousand characters. */
  readonly answerExcerpt: string;
  /** The stored copy of a large root answer. */
  readonly artifactId?: string;
}

/** A checkpoint saved after a step. */
export interface TraceCheckpoint {
  readonly at: number;
  readonly checkpointId: string;
  readonly durationMs: number;
}

/** One iteration: a model response, its code and what the code did. */
export interface TraceStep {
  readonly iteration: number;
  readonly startedAt: number;
  /** When the model's response arrived; model time is `respondedAt - startedAt`. */
  readonly respondedAt?: number;
  readonly endedAt?: number;
  /** The model's full text (prose and code fences). */
  readonly text?: string;
  readonly blocks: readonly TraceBlock[];
  readonly hostCalls: readonly TraceHostCall[];
  /** Usage of this step's own model call(s), not of its host calls. */
  readonly usage: TraceUsage;
  /** The step's model call: the whole request (system prompt, messages) and response. */
  readonly modelCall?: TraceModelCall;
  /** Retries of the step's model call; their waits are part of its model time. */
  readonly retries?: TraceRetries;
  readonly warnings: readonly TraceWarning[];
  readonly checkpoint?: TraceCheckpoint;
  /** Set on the step that gave the call's answer. */
  readonly final?: TraceFinal;
}

/** One RLM call: the root or a `sub_rlm` child. */
export interface TraceCall {
  readonly callId: string;
  readonly parentCallId?: string;
  /** The parent's host call that started it. */
  readonly parentRequestId?: string;
  readonly depth: number;
  readonly query: string;
  readonly startedAt: number;
  readonly endedAt?: number;
  readonly status: TraceStatus;
  readonly steps: readonly TraceStep[];
  /** Children in start order. */
  readonly childCallIds: readonly string[];
  /** Warnings outside any step (before the first, during the forced extract). */
  readonly warnings: readonly TraceWarning[];
  /**
   * The model call of the forced final prompt (out of iterations, or stalled), which belongs to
   * no step.
   */
  readonly extract?: TraceModelCall;
  /** Usage of this call's own steps and host calls, children excluded. */
  readonly usage: TraceUsage;
  readonly final?: TraceFinal;
  readonly error?: { readonly name: string; readonly message: string };
  /** Set when the call continued from a checkpoint. */
  readonly resumed?: {
    readonly iteration: number;
    readonly restored: readonly string[];
    readonly lost: readonly string[];
  };
}

/** A whole run. */
export interface TraceDocument {
  readonly schema: typeof traceSchema;
  /** Unique per run, sortable by start time. */
  readonly runId: string;
  /** The root query; `''` until the root call starts. */
  readonly query: string;
  readonly startedAt: number;
  readonly endedAt?: number;
  readonly status: TraceStatus;
  /** `undefined` until the root call starts. */
  readonly rootCallId?: string;
  /** Every call, the root first, then in start order (`findCall` looks one up by id). */
  readonly calls: readonly TraceCall[];
  /** Summed over every call of the run. */
  readonly usage: TraceUsage;
  /** Steps over every call. */
  readonly steps: number;
  readonly depthReached: number;
  readonly final?: TraceFinal;
  readonly error?: { readonly name: string; readonly message: string };
  /** Free-form facts the caller adds (model ids, store path, ...). */
  readonly metadata: Readonly<Record<string, unknown>>;
}
