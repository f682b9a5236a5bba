import type { ModelPrices } from '@rlm/core';
import type { CliContextChoice } from '../context/load-cli-context.js';
import type { ToolStoreChoice } from '../store/resolve-tool-store.js';
import type { ModelProvider } from './model-providers.js';

/** A model named on the command line as `provider:model-id`, or `replay:<trace>`. */
export interface ModelSpec {
  /**
   * `anthropic`, `openai` (or any OpenAI-compatible server) or `ollama`; or `replay`, the
   * responses recorded in a run's trace.
   */
  readonly provider: ModelProvider | 'replay';
  /**
   * The provider's model id, e.g. `claude-sonnet-4-5`, `gpt-4.1`, `qwen2.5-coder:7b`; for
   * `replay`, the trace: a JSON-lines file (`rlm trace --jsonl`) or a stored run's id.
   */
  readonly modelId: string;
  /** For `replay`: the trace's JSON lines, when they were read from the store (a run id). */
  readonly replayTrace?: string;
  /**
   * `--base-url` for `--model`, `--sub-base-url` for `--sub-model`: the provider's API
   * endpoint; `undefined` keeps the provider's default (its environment variable, else its
   * public API; `http://127.0.0.1:11434/v1` for Ollama).
   */
  readonly baseURL?: string;
}

/** Everything a run needs from the command line, validated. */
export interface CliOptions extends CliContextChoice {
  /** The positional arguments joined by spaces; `undefined` for REPL and pipe modes. */
  readonly query: string | undefined;
  /** `--model`, else `RLM_MODEL`, else the Anthropic adapter's default. */
  readonly model: ModelSpec;
  /** `--sub-model`; `undefined` means the root model serves sub-calls too. */
  readonly subModel: ModelSpec | undefined;
  /**
   * `--sub-models a,b`: the model ids model code may choose per call
   * (`llm_query(prompt, { model })`), without a provider prefix; `undefined`: any id of the
   * run's provider.
   */
  readonly subModels: readonly string[] | undefined;
  /** `--max-depth`; `undefined` keeps the core's default. */
  readonly maxDepth: number | undefined;
  /** `--max-iterations`; `undefined` keeps the core's default. */
  readonly maxIterations: number | undefined;
  /**
   * `--max-errors`: code blocks in a row that may throw before a call stops with its partial
   * answer; `undefined`: no limit.
   */
  readonly maxConsecutiveErrors: number | undefined;
  /**
   * `--redaction-ratio`: the share of the context an output's verbatim copies of it may make
   * before they are redacted (`Infinity` with `off`); `undefined` keeps the core's 0.25.
   */
  readonly redactionRatio: number | undefined;
  /**
   * `--max-cost`: the run's budget in US dollars (a positive number); `undefined` for none. The
   * root and sub model then need a price (built in, or `--price`).
   */
  readonly maxCostUsd: number | undefined;
  /** `--price` (repeatable): prices by model id, on top of the built-in ones. */
  readonly prices: ModelPrices;
  /**
   * `--max-model-calls`, `--max-tokens` and `--max-wall-time`: the query's budgets. Model calls
   * and wall time always have one ({@link defaultMaxModelCalls}, {@link defaultMaxWallTimeMs}),
   * so a run that loops stops on its own; tokens only when given.
   */
  readonly budget: {
    readonly maxModelCalls: number;
    readonly maxTokens: number | undefined;
    readonly maxWallTimeMs: number;
  };
  /** `--exec-timeout`, in milliseconds per code block; `undefined` keeps the core's default. */
  readonly execTimeoutMs: number | undefined;
  /** `--max-code-blocks`: code blocks run per model response; `undefined` keeps the core's 20. */
  readonly maxCodeBlocks: number | undefined;
  /**
   * `--max-concurrency`: the most model calls in flight at once (fewer after the API's 429s);
   * `undefined` keeps the core's default (`defaultMaxConcurrency`).
   */
  readonly maxConcurrency: number | undefined;
  /**
   * `--max-response-chars`: characters of one model response sent back to the model;
   * `undefined` keeps the core's 20,000.
   */
  readonly maxResponseChars: number | undefined;
  /**
   * How model calls meet API faults; `undefined` fields keep the adapter's defaults (60 s, 2
   * retries, 60 s).
   */
  readonly modelCalls: {
    /** `--request-timeout`: milliseconds an answer may take to start, and each silence in it. */
    readonly timeoutMs: number | undefined;
    /** `--max-retries`: retries of a transient fault (0 or more). */
    readonly maxRetries: number | undefined;
    /** `--max-retry-wait`: the longest `retry-after` wait honoured, in milliseconds (0 or more). */
    readonly maxRetryAfterMs: number | undefined;
    /** `false` with `--no-stream` (answers in one body, for gateways that cannot stream). */
    readonly stream: false | undefined;
    /** `--max-response-bytes` (byte suffixes allowed): the most bytes of one response read. */
    readonly maxResponseBytes: number | undefined;
  };
  /**
   * `--max-artifact-bytes` (byte suffixes allowed) and `--max-artifacts`: the run's artifact
   * quotas; `undefined` keeps the core's defaults (1 GiB, 10,000).
   */
  readonly quotas: {
    readonly artifactBytes: number | undefined;
    readonly artifactCount: number | undefined;
  };
  /**
   * `--checkpoint-max-variable-bytes` (byte suffixes allowed): most bytes one variable may take
   * serialised in a checkpoint; `undefined` keeps the core's default (256 MiB).
   */
  readonly checkpointMaxVariableBytes: number | undefined;
  /**
   * `--checkpoint-max-lag <ms>`: how old the newest checkpoint may grow while steps preempt the
   * snapshots after them (0: every step waits for its snapshot); `undefined` keeps the core's
   * default (30 s).
   */
  readonly checkpointMaxLagMs: number | undefined;
  /**
   * `--json`: one JSON line per query, `{ answer, iterations, depthReached, usage, durationMs }`,
   * or `{ error, usage, ... }` for a failure.
   */
  readonly json: boolean;
  /** `--quiet`: no progress on stderr. */
  readonly quiet: boolean;
  /** `--store`: the SQLite artifact store; `undefined` with `--no-store`. */
  readonly storePath: string | undefined;
  /** `--resume`: continue the latest checkpoint of the same query and context. */
  readonly resume: boolean;
  /** `--store-errors`: what a store failure during a run does to the exit code. */
  readonly storeErrors: StoreErrorPolicy;
  /**
   * `--connect-timeout`: how long reaching a Redis store or queue may take, in milliseconds,
   * before the command gives up with one line (exit 2) (default {@link defaultConnectTimeoutMs}).
   */
  readonly connectTimeoutMs: number;
  /** `--sandbox`: the adapter model code runs in: SES in a worker thread, or QuickJS. */
  readonly sandbox: SandboxChoice;
  /** `--tools`: a module exporting host tools. */
  readonly toolsModule: string | undefined;
  /**
   * `--out`: write the answers to this file instead of stdout; the first replaces it, later
   * ones are appended.
   */
  readonly outFile: string | undefined;
  /** `--trace`: write the run's HTML trace to this file when each query ends, failed or not. */
  readonly traceFile: string | undefined;
  /**
   * The durable tool store (see `resolveToolStore`): `--toolstore`, else `RLM_TOOLSTORE`, else
   * `tools` beside the artifact store; `undefined` with `--no-store` and neither setting.
   */
  readonly toolStore: ToolStoreChoice | undefined;
  /**
   * Kill switches of the durable tool store: `--no-tool-reads` (never run persisted code),
   * `--no-tool-repair` (regenerate instead of repairing), `--tool-generation-only` (act as if
   * there were no store).
   */
  readonly toolSwitches: {
    readonly readArtifacts: boolean;
    readonly repair: boolean;
    readonly generationOnly: boolean;
  };
}

/**
 * `fail` (the default): a run during which the store failed exits 3 after printing its answer;
 * `warn`: it only says so on stderr.
 */
export type StoreErrorPolicy = 'fail' | 'warn';

/** The sandbox adapters `--sandbox` chooses from. */
export type SandboxChoice = 'ses' | 'quickjs';
/** Where the CLI keeps artifacts and checkpoints unless told otherwise. */
export const defaultStorePath = '.rlm/rlm.sqlite';

/** 256 MiB: V8 strings stop just under 512 Mi characters, and the sandbox holds a copy. */
export const defaultMaxContextBytes = 256 * 1024 * 1024;

/**
 * Model calls per query unless `--max-model-calls` says otherwise: room for wide
 * `llm_query_batched` fan-outs, but a run that loops stops on its own.
 */
export const defaultMaxModelCalls = 500;

/** Wall time per query unless `--max-wall-time` says otherwise: 30 minutes. */
export const defaultMaxWallTimeMs = 30 * 60_000;

/** How long reaching a Redis store or queue may take unless `--connect-timeout` says otherwise. */
export const defaultConnectTimeoutMs = 10_000;
