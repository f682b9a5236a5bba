import type { ArtifactRef } from './artifact-store.js';
import type { CallUsage } from './cost/call-usage-ledger.js';
import type { ModelRetry, Usage } from './language-model.js';
import type { RunUsage } from './rlm-settings.js';
import type { VariableInfo } from './sandbox.js';
import type { VariableSyncReason } from './variable-space.js';

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

/** A code block ran. `output` is what the model will see (truncated, possibly redacted). */
export interface ExecutionEvent extends EventBase {
  readonly type: 'execution';
  readonly iteration: number;
  readonly index: number;
  readonly output: string;
  readonly error?: string;
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

/** Something unexpected that the loop recovered from. */
export interface WarningEvent extends EventBase {
  readonly type: 'warning';
  /** A stable machine-readable code, e.g. `submit-with-code`, `no-code-no-answer`. */
  readonly code: string;
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
 * A model call failed in a way worth retrying (429, 5xx, a timeout, a body that was not the
 * API's JSON) and the adapter waits `delayMs` before attempt `attempt` of `maxAttempts`.
 */
export interface ModelRetryEvent extends EventBase, ModelRetry {
  readonly type: 'model-retry';
  /** The host call (`llm_query`, ...) the model call serves, as on `usage` events. */
  readonly requestId?: string;
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
  | ModelRetryEvent
  | VariablesUpdatedEvent
  | VariableSyncFailedEvent
  | ResumedEvent
  | CheckpointEvent;
