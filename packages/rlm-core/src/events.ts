import type { ArtifactRef } from './artifact-store.js';
import type { DurableToolSource } from './durable-tool-store.js';
import type { GenerateRequest, GenerateResult, ModelRetry, Usage } from './language-model.js';
import type { CallUsage, RunUsage } from './run-usage.js';
import type { VariableInfo } from './sandbox.js';

/** Why a variable sync ran. */
export type VariableSyncReason = 'start' | 'code-executed' | 'extract';

/** Fields every event carries. */
interface EventBase {
  /** Identifies one RLM call (the root query or one `sub_rlm` child). */
  readonly callId: string;
  /** 0 for the root call, parent depth + 1 for a `sub_rlm` child. */
  readonly depth: number;
  /**
   * When the loop emitted the event, in milliseconds since the epoch. Set by the loop on every
   * event; optional so that hand-made events stay valid.
   */
  readonly at?: number;
}

/** A call (root or child) started. */
export interface CallStartEvent extends EventBase {
  readonly type: 'call-start';
  readonly query: string;
  readonly parentCallId?: string;
}

/** One loop iteration (a model response and its code) started. */
export interface StepStartEvent extends EventBase {
  readonly type: 'step-start';
  readonly iteration: number;
}

/** The model's free text for one iteration. */
export interface TextEvent extends EventBase {
  readonly type: 'text';
  readonly iteration: number;
  readonly text: string;
}

/**
 * A piece of the model's text as it streams in (only when the adapter streams). The full text
 * of the response still arrives once, as a `text` event; a retried request may repeat pieces.
 */
export interface TextDeltaEvent extends EventBase {
  readonly type: 'text-delta';
  readonly iteration: number;
  readonly text: string;
}

/** A code block about to run. */
export interface CodeEvent extends EventBase {
  readonly type: 'code';
  readonly iteration: number;
  /** Position of the block within the response, from 0. */
  readonly index: number;
  readonly code: string;
}

/**
 * A code block ran. `output` and `error` are what happened, apart; `shownToModel` is what the
 * model is told of it (the output redacted and truncated, the error after it).
 */
export interface ExecutionEvent extends EventBase {
  readonly type: 'execution';
  readonly iteration: number;
  readonly index: number;
  /**
   * What the code printed (and its last value), as the sandbox returned it (at most the
   * sandbox's `maxOutputChars`), without its final newline; never the error.
   */
  readonly output: string;
  /** The error the block ended with, as the sandbox reported it; absent when it ran through. */
  readonly error?: string;
  /**
   * The text the model is shown of this block (see `maxOutputChars`, `redactionRatio`), with the
   * notes of its host calls after it.
   */
  readonly shownToModel: string;
  readonly durationMs: number;
}

/** One iteration finished. */
export interface StepCompleteEvent extends EventBase {
  readonly type: 'step-complete';
  readonly iteration: number;
  readonly durationMs: number;
}

/** Model code called a host function (`llm_query`, `sub_rlm`, ...). */
export interface BridgeCallEvent extends EventBase {
  readonly type: 'bridge-call';
  readonly requestId: string;
  readonly name: string;
  /**
   * The start of the arguments (the lone argument on its own, e.g. the `llm_query` prompt),
   * at most about 300 characters, longer ones ending in `… (N chars)`.
   */
  readonly argumentsExcerpt?: string;
}

/** A host function call settled. */
export interface BridgeResultEvent extends EventBase {
  readonly type: 'bridge-result';
  readonly requestId: string;
  readonly name: string;
  readonly ok: boolean;
  readonly durationMs: number;
  /** The error message when `ok` is false. */
  readonly error?: string;
  /** The start of the result when `ok` is true (e.g. the `llm_query` answer), like `argumentsExcerpt`. */
  readonly resultExcerpt?: string;
}

/**
 * What a {@link WarningEvent} is about; the list is closed, so a consumer can switch on it.
 * - `submit-with-code`: a response called the SUBMIT tool and also wrote code; the code did not run.
 * - `submit-unreadable`: a SUBMIT tool call's input could not be read (e.g. cut off at max_tokens).
 * - `answer-rejected`: a final answer could not be read or did not match the output schema; the
 *   model was told and the loop went on.
 * - `tools-unsupported`: the provider refused the SUBMIT tool; the run went on with FINAL text.
 * - `stall`: `stallLimit` empty responses in a row; the loop went to the forced final prompt.
 * - `empty-response`: a response with no text and no tool call.
 * - `empty-sub-answer`: an `llm_query` (or a batch's prompt, or a last-depth `sub_rlm`) got an
 *   empty answer; model code got `""` and the model a note saying so.
 * - `response-cut`: a response stopped at max_tokens; the model was told to continue.
 * - `code-blocks-not-run`: blocks past `maxCodeBlocksPerResponse` did not run.
 * - `queue-overload`: more host calls pending than `commandQueue.maxPending`.
 * - `checkpoint-failed`: a checkpoint could not be saved; the run went on.
 * - `checkpoint-variable-skipped`: variables over `checkpointMaxVariableBytes` were not saved.
 * - `resume-variables-lost`: after a resume, variables restored in the background could not be
 *   brought back; the run went on without them.
 */
export type WarningCode =
  | 'submit-with-code'
  | 'submit-unreadable'
  | 'answer-rejected'
  | 'tools-unsupported'
  | 'stall'
  | 'empty-response'
  | 'empty-sub-answer'
  | 'response-cut'
  | 'code-blocks-not-run'
  | 'queue-overload'
  | 'checkpoint-failed'
  | 'checkpoint-variable-skipped'
  | 'resume-variables-lost';

/** Something unexpected that the loop recovered from. */
export interface WarningEvent extends EventBase {
  readonly type: 'warning';
  /** A stable machine-readable code: one of {@link WarningCode}. */
  readonly code: WarningCode;
  readonly message: string;
}

/** A call produced its answer. For the root call this is the run's result. */
export interface FinalEvent extends EventBase {
  readonly type: 'final';
  readonly answer: unknown;
  readonly iterations: number;
  /** Usage of the whole run so far (for the root: the run's total). */
  readonly usage: RunUsage;
  /** On the root's final event: the usage of each call of the tree (see `RLMResult.callUsage`). */
  readonly callUsage?: readonly CallUsage[];
  /** Deepest call depth the run reached so far. */
  readonly depthReached: number;
  /** Time since the run started, in milliseconds. */
  readonly durationMs: number;
  /** The stored copy of a large root answer (see `largeAnswerChars`). */
  readonly artifact?: ArtifactRef;
  /** How the answer was given: `submit-tool`, `submit-code`, `final-var`, `final-text`, `extract`. */
  readonly source: FinalSource;
}

/** A call failed. For the root call the stream then throws the same error. */
export interface CallErrorEvent extends EventBase {
  readonly type: 'call-error';
  readonly message: string;
  readonly errorName: string;
  /** On the root's call-error event: the usage of each call of the tree until the failure. */
  readonly callUsage?: readonly CallUsage[];
}

/** After each model call: its usage. */
export interface UsageEvent extends EventBase {
  readonly type: 'usage';
  /** The usage of this one model call. */
  readonly usage: Usage;
  /** The model that answered, as its adapter names it (e.g. `anthropic:claude-sonnet-5-5`). */
  readonly modelId: string;
  /** What this model call cost in US dollars; absent when the model has no price. */
  readonly costUsd?: number;
  /** Model calls of the whole run so far. */
  readonly modelCalls: number;
  /** The host call (`llm_query`, `sub_rlm` at the deepest level, ...) this model call served. */
  readonly requestId?: string;
}

/**
 * A model call answered: the request as it was sent and the response as it came back, so that a
 * trace can show every prompt and a replay can answer the same requests again. Emitted once per
 * model call that answered (none for one that failed), right before its `usage` event. The
 * request and the response are the loop's own immutable objects: never change them.
 */
export interface ModelCallEvent extends EventBase {
  readonly type: 'model-call';
  /**
   * The call's iteration when the model was asked: the step's (or, for the forced final
   * prompt, the last step's), or that of the step whose code made the host call.
   */
  readonly iteration: number;
  /** The host call (`llm_query`, ...) this model call served, as on `usage` events. */
  readonly requestId?: string;
  /** The model that answered, as its adapter names it. */
  readonly modelId: string;
  readonly request: GenerateRequest;
  readonly response: GenerateResult;
  /**
   * Milliseconds from the request (once it held a concurrency slot) to the whole response,
   * retries and their waits included.
   */
  readonly durationMs: number;
}

/**
 * A model call failed in a way worth retrying (429, 5xx, a timeout, a body that was not the
 * API's JSON) and the adapter waits `delayMs` before attempt `attempt` of `maxAttempts`.
 */
export interface ModelRetryEvent extends EventBase, ModelRetry {
  readonly type: 'model-retry';
  /** The host call (`llm_query`, ...) the model call serves, as on `usage` events. */
  readonly requestId?: string;
}

/**
 * The number of model calls allowed at once in the run tree changed. It starts at the cap
 * (`maxConcurrency`), halves when the API answers 429 (`rate-limited`, with the API's
 * `retry-after` as `pausedMs`, during which no call starts), and rises by one for each call
 * answered without a 429 (`raised`), never above the cap.
 */
export interface ConcurrencyEvent extends EventBase {
  readonly type: 'concurrency';
  /** Model calls allowed at once now. */
  readonly level: number;
  /** The most ever allowed at once: `maxConcurrency`. */
  readonly cap: number;
  readonly reason: 'rate-limited' | 'raised';
  /** On `rate-limited`: how long no model call starts, in milliseconds, when the API said. */
  readonly pausedMs?: number;
}

/** The sandbox's variables were listed (at call start, after each execution, before extract). */
export interface VariablesUpdatedEvent extends EventBase {
  readonly type: 'variables-updated';
  readonly reason: VariableSyncReason;
  readonly iteration: number;
  /** Sorted by name. */
  readonly variables: readonly VariableInfo[];
  readonly freshness: 'fresh' | 'stale';
}

/** Listing the sandbox's variables failed after its retries; the old listing is kept, stale. */
export interface VariableSyncFailedEvent extends EventBase {
  readonly type: 'variable-sync-failed';
  readonly reason: VariableSyncReason;
  readonly message: string;
  readonly retries: number;
  readonly timedOut: boolean;
}

/** The run continued from a checkpoint. */
export interface ResumedEvent extends EventBase {
  readonly type: 'resumed';
  /** The iteration the checkpoint was taken after. */
  readonly iteration: number;
  /**
   * Variables restored from the checkpoint. Those the sandbox serialised are restored in the
   * background, before the first execution; one that then cannot be is reported in a
   * `resume-variables-lost` warning (and to the model with that execution's output).
   */
  readonly restored: readonly string[];
  /** Variables that existed but could not be saved (not serializable). */
  readonly lost: readonly string[];
}

/** A checkpoint was saved after an executed step. */
export interface CheckpointEvent extends EventBase {
  readonly type: 'checkpoint';
  readonly iteration: number;
  readonly checkpointId: string;
  readonly durationMs: number;
}

/**
 * What a durable tool's method call did (`tool(role).method(...)` with a `toolStore`):
 * - `writing`: the model is writing new code for it (`source` `generated`) or repairing its
 *   code (`repaired`); one of the others follows when the code has run;
 * - `reused`: persisted code ran and worked (`generationId` is the generation that ran);
 * - `saved`: new or repaired code worked and was persisted as `generationId`;
 * - `failed`: the code threw (`error`); `retry` says whether a repaired version is tried next.
 */
export interface DurableToolEvent extends EventBase {
  readonly type: 'durable-tool';
  readonly role: string;
  readonly method: string;
  readonly activity: 'writing' | 'reused' | 'saved' | 'failed';
  /** Where the code came from: persisted, newly generated, or repaired. */
  readonly source: DurableToolSource;
  /** The generation that ran (`reused`, and `failed` persisted code) or was written (`saved`). */
  readonly generationId?: string;
  /** How long the method's code ran, in milliseconds, as its sandbox measured it. */
  readonly durationMs?: number;
  /** On `failed`: what the code threw. */
  readonly error?: { readonly name: string; readonly message: string };
  /** On `failed`: whether a repaired version is tried next. */
  readonly retry?: boolean;
}

/** How a final answer was given. */
export type FinalSource = 'submit-tool' | 'submit-code' | 'final-var' | 'final-text' | 'extract';

/** Every event `queryStream` yields, discriminated by `type`. */
export type RlmEvent =
  | CallStartEvent
  | StepStartEvent
  | TextEvent
  | TextDeltaEvent
  | CodeEvent
  | ExecutionEvent
  | StepCompleteEvent
  | BridgeCallEvent
  | BridgeResultEvent
  | WarningEvent
  | FinalEvent
  | CallErrorEvent
  | UsageEvent
  | ModelCallEvent
  | ModelRetryEvent
  | ConcurrencyEvent
  | VariablesUpdatedEvent
  | VariableSyncFailedEvent
  | ResumedEvent
  | CheckpointEvent
  | DurableToolEvent;
