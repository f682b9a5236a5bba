import type { ArtifactRef, ArtifactStore } from './artifact-store.js';
import type { DurableToolStore } from './durable-tool-store.js';
import type { RlmEvent } from './events.js';
import type { LanguageModel } from './language-model.js';
import type { CallUsage, RunUsage } from './run-usage.js';
import type { Schema } from './schema.js';
import type { BudgetSettings, ModelPrices } from './budget-settings.js';
import type { CommandQueueSettings } from './bridge/bridge-router.js';
import type { HostTool } from './features/host-tools/host-tool.js';
import type { SessionMemorySettings } from './features/session/session-memory.js';
import type { ArtifactsSettings } from './features/artifacts/artifacts-settings.js';
import type { Feature } from './features/feature.js';
import type { QuotaSettings } from './features/artifacts/artifact-quota.js';
import type { VariableSyncSettings } from './variable-space.js';
import type { LimitsSettings } from './loop/limits-settings.js';

export type { BudgetSettings, ModelPrice, ModelPrices } from './budget-settings.js';
export type { CommandQueueSettings } from './bridge/bridge-router.js';
export type { QuotaSettings } from './features/artifacts/artifact-quota.js';
export type {
  ArtifactsSettings,
  CheckpointSettings,
} from './features/artifacts/artifacts-settings.js';
export type { HostTool, ToolOutput } from './features/host-tools/host-tool.js';
export type { SessionMemorySettings } from './features/session/session-memory.js';
export type { VariableSyncSettings } from './variable-space.js';
export type { LimitsSettings } from './loop/limits-settings.js';
import type { SandboxFactory, SandboxLimits } from './sandbox.js';

/**
 * Settings of {@link createRLM}. `OutputSchema` is the type of `outputSchema`, from which the
 * answer's type is inferred (see {@link InferSchemaOutput}).
 */
export interface RLMSettings<OutputSchema extends Schema | undefined = Schema | undefined> {
  /** The root model (required; `llm` is its deprecated name). */
  readonly model?: LanguageModel;
  /**
   * The model for `llm_query` and for `sub_rlm` at `limits.maxDepth`; defaults to `model`. One
   * model object, used whenever model code names none (compare `subModels`).
   */
  readonly subModel?: LanguageModel;
  /**
   * The root model.
   * @deprecated Use `model`; this flat name is removed in the next minor version.
   */
  readonly llm?: LanguageModel;
  /**
   * The model for `llm_query` and for `sub_rlm` at `maxDepth`.
   * @deprecated Use `subModel`; this flat name is removed in the next minor version.
   */
  readonly subLlm?: LanguageModel;
  /**
   * The ids of the models model code may choose per call (unlike `subModel`, which is the one
   * model object used when code names none): `llm_query(prompt, { model })`,
   * `llm_query_batched(prompts, { model })`, `sub_rlm(query, context, { model })` and
   * `sub_rlm_batched(tasks, { model })` (with or without the provider prefix). Unset: any model
   * id the adapter can make ({@link LanguageModel.withModel}: the adapter of `subModel` for
   * plain calls, of `model` for a child's steps). Each chosen model is priced from `prices` when it has
   * one, and `budget.maxCostUsd` still bounds the run: under it a listed id needs a price
   * (`ModelPriceError` otherwise), and an unlisted choice without one is refused. A refused id is
   * an error model code can catch, naming the ids allowed; a choice never changes the model of
   * the call that made it. The system prompt lists these ids. An empty list allows no choice.
   */
  readonly subModels?: readonly string[];
  /** Creates one sandbox per call (the root's persists across queries in persistent mode). */
  readonly sandbox: SandboxFactory;
  /**
   * The limits the loop keeps: depth, iterations, output and response sizes, concurrency,
   * execution time and the sandbox's limits, stalls and errors in a row, history size (see
   * {@link LimitsSettings}).
   */
  readonly limits?: LimitsSettings;
  /** @deprecated Use `limits.maxDepth`; this flat name is removed in the next minor version. */
  readonly maxDepth?: number;
  /** @deprecated Use `limits.maxIterations`; this flat name is removed in the next minor version. */
  readonly maxIterations?: number;
  /**
   * Keep one sandbox across `query()` calls, with `context_0..n` and `history`: a session in
   * which each query sees the earlier ones' contexts, variables and answers (the CLI's
   * interactive and piped modes). Default false: every query starts in a fresh sandbox and sees
   * only its own context, so one instance can serve unrelated queries (or users).
   * @deprecated Use `session.persistent`; this flat name is removed in the next minor version.
   */
  readonly persistent?: boolean;
  /**
   * The persistent session: `{ persistent: true }` keeps one sandbox across `query()` calls,
   * `memory` bounds what it keeps (see {@link SessionSettings}).
   */
  readonly session?: SessionSettings;
  /**
   * Bounds of what a persistent session keeps in memory: past them the oldest contexts and
   * `history` entries are spilled to `artifacts` (model code gets them back with `load`) or
   * dropped, and the prompt says which. Only with `persistent`. Default unbounded.
   * @deprecated Use `session.memory`; this flat name is removed in the next minor version.
   */
  readonly sessionMemory?: SessionMemorySettings;
  /** Replaces the built-in system prompt. */
  readonly systemPrompt?: string;
  /** @deprecated Use `limits.maxOutputChars`; this flat name is removed in the next minor version. */
  readonly maxOutputChars?: number;
  /**
   * @deprecated Use `limits.maxCodeBlocksPerResponse`; this flat name is removed in the next
   * minor version.
   */
  readonly maxCodeBlocksPerResponse?: number;
  /** @deprecated Use `limits.maxResponseChars`; this flat name is removed in the next minor version. */
  readonly maxResponseChars?: number;
  /**
   * Keeps the context out of the history: when the verbatim copies of the context in one
   * block's output (runs of 200 characters or more found in the context) add up to more than
   * this fraction of the context's length, each copy is replaced by a line naming where it is in
   * the context (`context.slice(0, 9000)`); what the code computed around them stays, however
   * long. A number above 0, `Infinity` to never redact; default 0.25. The CLI flag is
   * `--redaction-ratio`.
   */
  readonly redactionRatio?: number;
  /** Copies adding up to fewer characters than this are never redacted. Default 2,000. */
  readonly redactionMinChars?: number;
  /** Fence languages whose blocks run. Default `['repl']`. */
  readonly codeLanguages?: readonly string[];
  /** @deprecated Use `limits.maxConcurrency`; this flat name is removed in the next minor version. */
  readonly maxConcurrency?: number;
  /**
   * Shared budgets: tokens, cost, wall time and calls spent by the whole run tree (its own
   * group, beside `limits`, as what it bounds is spent across calls and priced by `prices`).
   */
  readonly budget?: BudgetSettings;
  /**
   * Prices by model id (without the `provider:` prefix), on top of `defaultModelPrices`; used
   * for the cost in usage and events and for `budget.maxCostUsd`.
   */
  readonly prices?: ModelPrices;
  /** @deprecated Use `limits.execTimeoutMs`; this flat name is removed in the next minor version. */
  readonly execTimeoutMs?: number;
  /** @deprecated Use `limits.sandbox`; this flat name is removed in the next minor version. */
  readonly sandboxLimits?: Partial<Omit<SandboxLimits, 'timeoutMs'>>;
  /** @deprecated Use `limits.maxResponseTokens`; this flat name is removed in the next minor version. */
  readonly maxResponseTokens?: number;
  /**
   * The schema the final answer must match: a JSON Schema, a Standard Schema with
   * `~standard.jsonSchema` (zod 4, arktype 2, valibot through `toStandardJsonSchema`), or
   * `{ schema, jsonSchema }`. The SUBMIT tool then takes `{"value": ...}` of its JSON Schema;
   * an answer that does not match goes back to the model with the issues to fix. With a
   * Standard Schema, `answer` is the schema's output, typed as such.
   */
  readonly outputSchema?: OutputSchema;
  /** @deprecated Use `limits.stallLimit`; this flat name is removed in the next minor version. */
  readonly stallLimit?: number;
  /**
   * @deprecated Use `limits.maxConsecutiveErrors`; this flat name is removed in the next minor
   * version.
   */
  readonly maxConsecutiveErrors?: number;
  /**
   * @deprecated Use `limits.historyBudgetChars`; this flat name is removed in the next minor
   * version.
   */
  readonly historyBudgetChars?: number;
  /** Backlog policy for host-function calls from model code. */
  readonly commandQueue?: CommandQueueSettings;
  /** Timeout and retries of variable listing. */
  readonly variableSync?: VariableSyncSettings;
  /**
   * Durable storage: enables `store`/`load`/`list_artifacts` in model code, named tool outputs,
   * an "Available artifacts" catalog in the prompt, a checkpoint after every executed step, and
   * `query(..., { resume: true })`. Records live in one scope per run (query + context hash,
   * within `artifacts.runNamespace`). A bare `ArtifactStore` (the old form) is deprecated: use `{ store }`.
   */
  readonly artifacts?: ArtifactsSettings | ArtifactStore;
  /** Host functions model code may call, each with an input schema. */
  readonly hostTools?: readonly HostTool[];
  /** Durable tools that runs build and keep (see {@link DurableToolsSettings}). */
  readonly durableTools?: DurableToolsSettings;
  /**
   * Features of your own, installed in every run after the built-in ones, in this order (see
   * {@link Feature}).
   */
  readonly features?: readonly Feature[];
  /**
   * Host functions model code may call, each with an input schema.
   * @deprecated Use `hostTools`; this flat name is removed in the next minor version.
   */
  readonly tools?: readonly HostTool[];
  /**
   * An answer longer than this (characters of text, or of its JSON) is also stored as a blob
   * in `artifacts`, and the result carries its `artifact` ref. Default 65,536.
   * @deprecated Use `artifacts.largeAnswerChars`; this flat name is removed in the next minor version.
   */
  readonly largeAnswerChars?: number;
  /**
   * Characters of the artifact catalog shown in the prompt. Default 4,000.
   * @deprecated Use `artifacts.catalogChars`; this flat name is removed in the next minor version.
   */
  readonly catalogChars?: number;
  /**
   * Most bytes one variable may take serialised in a checkpoint. A larger variable is named
   * but not saved (a `checkpoint-variable-skipped` warning says so), and is lost on resume.
   * Default 268,435,456 (256 MiB).
   * @deprecated Use `artifacts.checkpoints.maxVariableBytes`; this flat name is removed in the next minor version.
   */
  readonly checkpointMaxVariableBytes?: number;
  /**
   * How old, in milliseconds, the newest checkpoint may grow while executions preempt the
   * snapshots after them (a model that answers faster than a large snapshot is taken; see
   * `Sandbox.snapshotVariables`); past it, the next execution waits for the snapshot. `0`: every
   * execution waits for the snapshot of the step before it (a checkpoint after every step, at
   * the cost of that wait). Default 30,000.
   * @deprecated Use `artifacts.checkpoints.maxLagMs`; this flat name is removed in the next minor version.
   */
  readonly checkpointMaxLagMs?: number;
  /**
   * Tools that runs build and keep (e.g. `@rlm/toolstore`): model code gets
   * `delegate(role, contract)` and `tool(role).method(...)`, and the prompt a ranked
   * `<known_tools>` block.
   * @deprecated Use `durableTools.store`; this flat name is removed in the next minor version.
   */
  readonly toolStore?: DurableToolStore;
  /**
   * Per-run limits on artifacts written by model code. See {@link QuotaSettings}.
   * @deprecated Use `artifacts.quotas`; this flat name is removed in the next minor version.
   */
  readonly quotas?: QuotaSettings;
  /**
   * @deprecated Use `limits.maxConcurrentChildren`; this flat name is removed in the next minor
   * version.
   */
  readonly maxConcurrentChildren?: number;
}

/** The persistent session (`createRLM({ session })`). */
export interface SessionSettings {
  /**
   * Keep one sandbox across `query()` calls, with `context_0..n` and `history`: a session in
   * which each query sees the earlier ones' contexts, variables and answers (the CLI's
   * interactive and piped modes). Default false: every query starts in a fresh sandbox.
   */
  readonly persistent?: boolean;
  /** Bounds of what the session keeps in memory. Only with `persistent`. Default unbounded. */
  readonly memory?: SessionMemorySettings;
}

/** Durable tools (`createRLM({ durableTools })`). */
export interface DurableToolsSettings {
  /**
   * Tools that runs build and keep (e.g. `@rlm/toolstore`): model code gets
   * `delegate(role, contract)` and `tool(role).method(...)`, and the prompt a ranked
   * `<known_tools>` block.
   */
  readonly store: DurableToolStore;
}

/** Options of one query. */
export interface QueryOptions {
  /** Aborts the whole run: model calls, sandboxes, children. */
  readonly signal?: AbortSignal;
  /**
   * Continue from the latest checkpoint of the same query over the same context in the same
   * `artifacts.runNamespace`, if there is one (needs `artifacts`): the transcript, iteration,
   * variables and budget used are restored.
   */
  readonly resume?: boolean;
}

/** The result of one `query()`; `Answer` is the output type of a Standard `outputSchema`. */
export interface RLMResult<Answer = unknown> {
  /**
   * A string for text answers; any JSON-like value for `FINAL_VAR` or structured `SUBMIT`; the
   * validated value (the schema's output) with an `outputSchema`.
   */
  readonly answer: Answer;
  /** Usage of the whole tree: every model call of the root, its children and host calls. */
  readonly usage: RunUsage;
  /**
   * Usage of each call of the tree, its own model calls only, in start order: the root, each
   * `sub_rlm` child and each `llm_query` / `llm_query_batched` call. Summed, they make `usage`
   * (apart from usage restored from a checkpoint, which only `usage` holds).
   */
  readonly callUsage: readonly CallUsage[];
  /** Root iterations used. */
  readonly iterations: number;
  /** Deepest call depth reached (0 = only the root ran). */
  readonly depthReached: number;
  readonly durationMs: number;
  /** The run's identity in the artifact store (set when `artifacts` is configured). */
  readonly runKey?: string;
  /** The stored copy of a large answer (see `largeAnswerChars`). */
  readonly artifact?: ArtifactRef;
  /** Set when the run continued from a checkpoint: the iteration it resumed after. */
  readonly resumedFrom?: number;
}

/** A Recursive Language Model whose answers type as `Answer`. */
export interface RLM<Answer = unknown> extends AsyncDisposable {
  /**
   * Answers `query` over `context` (a string, array, or JSON-like object kept only inside the
   * sandbox). Rejects with `NoFinalAnswerError`, `BudgetExhaustedError`, `AbortedError`,
   * `ModelCallError` or `SandboxError`. Without `persistent`, queries on one instance run
   * concurrently, each in its own sandbox (each with its own `maxConcurrency` and budget); in
   * a persistent session they run one at a time, in call order.
   */
  query(query: string, context?: unknown, options?: QueryOptions): Promise<RLMResult<Answer>>;
  /**
   * Same as `query`, as a stream of events ending with the root's `final` event. The stream
   * throws the run's error after yielding a `call-error` event. Breaking out of the loop
   * aborts the run.
   */
  queryStream(query: string, context?: unknown, options?: QueryOptions): AsyncIterable<RlmEvent>;
  /**
   * Ends the persistent session and starts a new one: waits for the queries already asked,
   * then disposes the session's sandbox and forgets its contexts (`context_0..n`), variables
   * and `history`. The next query starts fresh. Without `persistent` there is nothing to
   * forget: it resolves at once.
   */
  reset(): Promise<void>;
  /**
   * Disposes the persistent sandbox and resolves once no checkpoint is being written: a query
   * answers without waiting for the write of a checkpoint its answer made needless, so close
   * the artifact store after this resolves, never before. Idempotent.
   */
  dispose(): Promise<void>;
}
