import {
  AbortedError,
  BudgetExhaustedError,
  createRLM,
  type FinalEvent,
  ModelCallError,
  ModelPriceError,
  NoFinalAnswerError,
  type RLM,
  type RLMSettings,
  type RlmEvent,
  type RunUsage,
  SandboxError,
  formatErrorLine,
} from '@rlm/core';
import { ContextRoot, type ContextRootSettings } from './context-root.js';
import { ServedRequestError } from './errors/served-request-error.js';
import { ServerSettingsError } from './errors/server-settings-error.js';
import {
  checkRunLimits,
  type RequestedRunLimits,
  type RunLimits,
  resolveRunLimits,
} from './run-limits.js';
import { RunProgress, type ServedProgress } from './run-progress.js';
import { RunSlots } from './run-slots.js';
import { buildServedContext, type ServedFile, type ServedMessage } from './served-context.js';
import type { ServedModel } from './served-model.js';
import { ServedModelCatalog, type ServedModelResolver } from './served-model-catalog.js';
import type { ServedOutcome, ServedRequestLog } from './served-request-log.js';

/**
 * The `createRLM` settings every served run shares: sandbox, tools, prices, depth, iterations...
 * The models come from the served model id, the budget from the request's limits, and served
 * runs are never persistent (each request has its own sandbox).
 */
export type ServedRlmSettings = Omit<
  RLMSettings,
  | 'model'
  | 'subModel'
  | 'llm'
  | 'subLlm'
  | 'budget'
  | 'persistent'
  | 'outputSchema'
  | 'sessionMemory'
  | 'session'
>;

/** Who a served run is, for its trace. */
export interface ServedRunInfo {
  readonly requestId: string;
  readonly protocol: 'openai' | 'mcp';
  /** The model id it runs on. */
  readonly model: string;
  readonly query: string;
}

/** Keeps one served run's trace, e.g. in a trace store that `rlm runs` reads. */
export interface RunRecorder {
  /** The id the run will be kept under, known from the start; sent back with the answer. */
  readonly runId?: string;
  /** Sees every event of the run, in order. */
  record(event: RlmEvent): void;
  /**
   * Ends the trace (failed with `error` when given) and keeps it. It runs after the answer is
   * sent (keeping a trace never delays or changes a response); `RlmService.close` waits for it.
   * A rejection is ignored.
   */
  finish(error?: unknown): Promise<unknown>;
}

/**
 * A stored run, as the MCP server lists it; any other fields (status, usage, times) are shown
 * as they are in `rlm://runs`.
 */
export interface ServedRunSummary {
  readonly runId: string;
  readonly query: string;
}

/** The runs kept in a store, for MCP resources. */
export interface RunCatalog {
  /** The newest runs first, at most `limit`. */
  list(limit: number): Promise<readonly ServedRunSummary[]>;
  /** One run's trace as text (`mimeType` says which format); `undefined` when there is none. */
  read(runId: string): Promise<{ readonly mimeType: string; readonly text: string } | undefined>;
}

/** Settings of {@link createRlmService}. */
export interface RlmServiceSettings {
  /**
   * The models served, by id; the first is the default (also served as `rlm`). Ids of the form
   * `rlm:<provider>:<model-id>[+<provider>:<model-id>]` are conventional (see `ServedModelId`).
   */
  readonly models: Readonly<Record<string, ServedModel>>;
  /** Serves ids that are not listed, when given (see {@link ServedModelResolver}). */
  readonly resolveModel?: ServedModelResolver;
  /** What every run shares (see {@link ServedRlmSettings}); `sandbox` is required. */
  readonly rlm: ServedRlmSettings;
  /** The maxima a request's limits may not exceed, and the limits of a request that sets none. */
  readonly limits?: Partial<RunLimits>;
  /** Runs at once; a request past it is refused with 429. Default 4. */
  readonly concurrency?: number;
  /** The directory whose files requests may name as context; without it, requests name none. */
  readonly contextRoot?: ContextRootSettings;
  /** Called once per run to keep its trace. */
  readonly recordRun?: (run: ServedRunInfo) => RunRecorder;
  /** The stored runs, listed and read as MCP resources. */
  readonly runs?: RunCatalog;
  /** The answer as the text sent back; default: strings as they are, anything else as JSON. */
  readonly formatAnswer?: (answer: unknown) => string;
  /** Receives one entry per request (see `formatServedRequestLog` for a line). */
  readonly log?: (entry: ServedRequestLog) => void;
}

/** What a request asks of the service, once its protocol has parsed it. */
export interface ServedQuery {
  readonly protocol: 'openai' | 'mcp';
  readonly requestId: string;
  /** When it arrived (milliseconds since the epoch), for the log. */
  readonly startedAt: number;
  /** The model id as sent; `undefined` for the default. */
  readonly model: unknown;
  /** The question; the model sees it, never the context. */
  readonly query: string;
  /** The conversation before the query (HTTP), in order. */
  readonly messages?: readonly ServedMessage[];
  /** The request's own context value, as sent; `undefined` for none. */
  readonly inline?: unknown;
  /** Paths under the context root, as sent (checked here); `undefined` for none. */
  readonly paths?: unknown;
  /** The request field `paths` came in, for messages: `context_paths`, `paths`. */
  readonly pathsParam?: string;
  /** Files attached to the request. */
  readonly files?: readonly ServedFile[];
  /** The limits asked for, as sent. */
  readonly limits: RequestedRunLimits;
  /** Whether the answer is streamed (for the log). */
  readonly stream?: boolean;
  /** Aborts the run: the client went away or cancelled. */
  readonly signal: AbortSignal;
  /** Receives the run's progress reports; a throw is ignored. */
  readonly onProgress?: (progress: ServedProgress) => void;
}

/** A served run's answer. */
export interface ServedAnswer {
  /** The answer as text (see `formatAnswer`); the best partial answer when `incomplete`. */
  readonly answer: string;
  /**
   * Set when the run stopped before a final answer (a budget or the iterations ran out):
   * `answer` is then the best partial answer, possibly empty.
   */
  readonly incomplete?: {
    /** `model_calls`, `tokens`, `cost`, `wall_time` (a budget) or `iterations`. */
    readonly reason: string;
    readonly message: string;
  };
  readonly usage: RunUsage;
  /** Root steps. */
  readonly iterations: number;
  readonly durationMs: number;
  /** The run's id in the trace store, when one was kept. */
  readonly runId?: string;
}

/** A run the service admitted: its context is loaded and it is running. */
export interface StartedRun {
  /** The model id it runs on. */
  readonly model: string;
  /**
   * Resolves to the answer; rejects with a {@link ServedRequestError} (500, 502, 503) when the
   * run failed or the server cut it, and with `AbortedError` when the client went away.
   */
  readonly done: Promise<ServedAnswer>;
}

/** One served RLM, shared by the OpenAI-compatible endpoint and the MCP server. */
export interface RlmService {
  /** The models served. */
  readonly models: ServedModelCatalog;
  /** The server's maxima per request. */
  readonly limits: RunLimits;
  /** The context root, when there is one. */
  readonly contextRoot: ContextRoot | undefined;
  /** The stored runs, when given; a listing waits for the traces still being kept. */
  readonly runs: RunCatalog | undefined;
  /** Runs at once at most, and running now. */
  readonly concurrency: { readonly size: number; readonly running: number };
  /** Whether {@link RlmService.close} was called: new runs are refused with 503. */
  readonly closing: boolean;
  /**
   * Checks the request (model, limits, context paths), takes a run slot and starts the run.
   *
   * @throws {ServedRequestError} 400, 404 or 413 for a bad request, 429 when every slot is
   * taken, 503 while closing. Nothing ran then.
   */
  start(query: ServedQuery): Promise<StartedRun>;
  /** Logs a request that never became a run (see `RlmServiceSettings.log`). */
  log(entry: ServedRequestLog): void;
  /**
   * Logs a request refused before its run started (outcome `rejected`) and returns the error it
   * is answered with (see `ServedRequestError.from`).
   */
  refuse(
    request: Pick<ServedQuery, 'protocol' | 'requestId' | 'startedAt' | 'model' | 'stream'>,
    error: unknown,
  ): ServedRequestError;
  /**
   * Refuses new runs, lets the running ones finish for `graceMs` (default 30,000), then aborts
   * the rest (they end 503, `cut`); resolves when every run has ended and its trace is kept.
   * Calling it again returns
   * the same promise; a shorter `graceMs` then brings the cut forward (0: now).
   */
  close(options?: { readonly graceMs?: number }): Promise<void>;
}

/**
 * Creates the service: checks the settings (each listed model is given to `createRLM` once),
 * opens the context root.
 *
 * @throws {ServerSettingsError} for settings that cannot serve.
 */
export async function createRlmService(settings: RlmServiceSettings): Promise<RlmService> {
  const models = new ServedModelCatalog(settings.models, settings.resolveModel);
  const limits = checkRunLimits(settings.limits);
  const slots = new RunSlots(settings.concurrency ?? 4);
  const contextRoot = settings.contextRoot && (await ContextRoot.open(settings.contextRoot));
  for (const id of models.ids.slice(1)) {
    const { model } = models.resolve(id);
    try {
      createServedRlm(settings.rlm, model, limits)
        .dispose()
        .catch(() => {});
    } catch (error) {
      throw new ServerSettingsError(
        `@rlm/server: the RLM settings cannot serve ${id}: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
  }
  return new Service(settings, models, limits, slots, contextRoot);
}

function createServedRlm(rlm: ServedRlmSettings, served: ServedModel, limits: RunLimits): RLM {
  return createRLM({
    ...rlm,
    model: served.model,
    ...(served.subModel ? { subModel: served.subModel } : {}),
    session: { persistent: false },
    budget: {
      maxModelCalls: limits.maxModelCalls,
      maxWallTimeMs: limits.maxWallTimeMs,
      ...(limits.maxCostUsd === undefined ? {} : { maxCostUsd: limits.maxCostUsd }),
    },
  });
}

class Service implements RlmService {
  readonly models: ServedModelCatalog;
  readonly limits: RunLimits;
  readonly contextRoot: ContextRoot | undefined;
  readonly runs: RunCatalog | undefined;
  readonly #settings: RlmServiceSettings;
  readonly #slots: RunSlots;
  readonly #running = new Set<Promise<unknown>>();
  /** Traces still being kept after their answer was sent. */
  readonly #traces = new Set<Promise<unknown>>();
  /** Aborted when the grace period of `close` ends. */
  readonly #cut = new AbortController();
  #closed: Promise<void> | undefined;
  /** When the grace period of `close` ends (ms since the epoch), and its timer. */
  #cutAt = Number.POSITIVE_INFINITY;
  #cutTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    settings: RlmServiceSettings,
    models: ServedModelCatalog,
    limits: RunLimits,
    slots: RunSlots,
    contextRoot: ContextRoot | undefined,
  ) {
    this.#settings = settings;
    this.models = models;
    this.limits = limits;
    this.#slots = slots;
    this.contextRoot = contextRoot;
    const runs = settings.runs;
    // Traces are kept after their answers are sent: a listing waits for those still being kept.
    this.runs = runs && {
      list: async (limit) => {
        await Promise.all(this.#traces);
        return runs.list(limit);
      },
      read: async (runId) => {
        await Promise.all(this.#traces);
        return runs.read(runId);
      },
    };
  }

  get concurrency() {
    return { size: this.#slots.size, running: this.#slots.taken };
  }

  get closing(): boolean {
    return this.#closed !== undefined;
  }

  log(entry: ServedRequestLog): void {
    try {
      this.#settings.log?.(entry);
    } catch {
      // A failing log never changes a response.
    }
  }

  refuse(
    request: Pick<ServedQuery, 'protocol' | 'requestId' | 'startedAt' | 'model' | 'stream'>,
    error: unknown,
  ): ServedRequestError {
    const failure = ServedRequestError.from(error);
    this.log({
      startedAt: request.startedAt,
      requestId: request.requestId,
      protocol: request.protocol,
      ...(typeof request.model === 'string' ? { model: request.model } : {}),
      ...(request.stream === undefined ? {} : { stream: request.stream }),
      status: failure.status,
      outcome: 'rejected',
      durationMs: Date.now() - request.startedAt,
      error: failure.code,
    });
    return failure;
  }

  async start(query: ServedQuery): Promise<StartedRun> {
    this.#refuseWhenClosing();
    if (typeof query.query !== 'string' || query.query.trim() === '') {
      throw new ServedRequestError('the question is empty; ask one', {
        status: 400,
        code: 'missing_query',
      });
    }
    const { id, model } = this.models.resolve(query.model);
    const limits = resolveRunLimits(query.limits, this.limits);
    const release = this.#slots.tryTake();
    if (release === undefined) {
      throw new ServedRequestError(
        `all ${this.#slots.size} run slots of this server are taken; retry when a run has ended`,
        { status: 429, code: 'concurrency_limit' },
      );
    }
    try {
      const files = [...(await this.#loadPaths(query)), ...(query.files ?? [])];
      const context = buildServedContext({
        messages: query.messages ?? [],
        inline: query.inline,
        files,
      });
      // Closing began while the files were read: this run would not be waited for.
      this.#refuseWhenClosing();
      const rlm = this.#createRlm(id, model, limits);
      const done = this.#run(rlm, id, limits, query, context, release);
      const settled = done.then(
        () => {},
        () => {},
      );
      this.#running.add(settled);
      void settled.then(() => this.#running.delete(settled));
      return { model: id, done };
    } catch (error) {
      release();
      throw error;
    }
  }

  close(options: { readonly graceMs?: number } = {}): Promise<void> {
    const cutAt = Date.now() + (options.graceMs ?? 30_000);
    if (cutAt < this.#cutAt) {
      this.#cutAt = cutAt;
      clearTimeout(this.#cutTimer);
      this.#cutTimer = setTimeout(() => this.#cut.abort(), Math.max(0, cutAt - Date.now()));
    }
    this.#closed ??= Promise.all(this.#running).then(async () => {
      clearTimeout(this.#cutTimer);
      await Promise.all(this.#traces);
    });
    return this.#closed;
  }

  #refuseWhenClosing(): void {
    if (this.closing) {
      throw new ServedRequestError('the server is shutting down; send the request again later', {
        status: 503,
        code: 'shutting_down',
      });
    }
  }

  async #loadPaths(query: ServedQuery): Promise<ServedFile[]> {
    if (query.paths === undefined) return [];
    const param = query.pathsParam ?? 'paths';
    if (this.contextRoot === undefined) {
      throw new ServedRequestError(
        `${param} names files, but this server has no context root to read them from; send the text instead`,
        { status: 400, code: 'no_context_root', param },
      );
    }
    return this.contextRoot.load(query.paths, param, query.signal);
  }

  #createRlm(id: string, model: ServedModel, limits: RunLimits): RLM {
    try {
      return createServedRlm(this.#settings.rlm, model, limits);
    } catch (error) {
      if (ModelPriceError.isInstance(error)) {
        throw new ServedRequestError(
          `max_cost_usd needs a price for the models of ${id}, and this server has none for ${error.modelId}; drop max_cost_usd or use a priced model`,
          { status: 400, code: 'model_price_missing', param: 'max_cost_usd', cause: error },
        );
      }
      throw error;
    }
  }

  async #run(
    rlm: RLM,
    model: string,
    limits: RunLimits,
    query: ServedQuery,
    context: unknown,
    release: () => void,
  ): Promise<ServedAnswer> {
    const progress = new RunProgress();
    let recorder: RunRecorder | undefined;
    ignoreThrow(() => {
      recorder = this.#settings.recordRun?.({
        requestId: query.requestId,
        protocol: query.protocol,
        model,
        query: query.query,
      });
    });
    const signal = AbortSignal.any([query.signal, this.#cut.signal]);
    const started = performance.now();
    let final: FinalEvent | undefined;
    let outcome: { status: number; outcome: ServedOutcome; error?: string } = {
      status: 200,
      outcome: 'answered',
    };
    let answer: ServedAnswer | undefined;
    const runId = recorder?.runId;
    try {
      try {
        for await (const event of rlm.queryStream(query.query, context, { signal })) {
          ignoreThrow(() => recorder?.record(event));
          const report = progress.observe(event);
          if (report && query.onProgress) ignoreThrow(() => query.onProgress!(report));
          if (event.type === 'final' && event.depth === 0) final = event;
        }
        if (final === undefined) throw new Error('the run ended without a final answer event');
      } catch (error) {
        this.#keepTrace(recorder, error);
        const incomplete = describeIncomplete(error, limits);
        if (incomplete === undefined) throw error;
        outcome = { status: 200, outcome: 'incomplete', error: incomplete.reason };
        answer = {
          answer: incomplete.partialAnswer,
          incomplete: { reason: incomplete.reason, message: incomplete.message },
          usage: progress.usage,
          iterations: incomplete.iterations ?? 0,
          durationMs: performance.now() - started,
          ...(runId === undefined ? {} : { runId }),
        };
        return answer;
      }
      this.#keepTrace(recorder);
      answer = {
        answer: this.#formatAnswer(final.answer),
        usage: final.usage,
        iterations: final.iterations,
        durationMs: final.durationMs,
        ...(runId === undefined ? {} : { runId }),
      };
      return answer;
    } catch (error) {
      const failure = this.#failure(error, query.signal);
      outcome = {
        status: ServedRequestError.isInstance(failure) ? failure.status : 499,
        outcome: ServedRequestError.isInstance(failure)
          ? failure.code === 'shutting_down'
            ? 'cut'
            : 'failed'
          : 'cancelled',
        ...(ServedRequestError.isInstance(failure) ? { error: failure.code } : {}),
      };
      throw failure;
    } finally {
      await rlm.dispose().catch(() => {});
      release();
      this.log({
        startedAt: query.startedAt,
        requestId: query.requestId,
        protocol: query.protocol,
        model,
        ...(query.stream === undefined ? {} : { stream: query.stream }),
        ...outcome,
        usage: answer?.usage ?? progress.usage,
        durationMs: Date.now() - query.startedAt,
        ...(runId === undefined ? {} : { runId }),
      });
    }
  }

  /** Finishes a run's trace in the background; `close` waits for it. */
  #keepTrace(recorder: RunRecorder | undefined, ...error: [unknown?]): void {
    if (recorder === undefined) return;
    let kept: Promise<unknown>;
    try {
      kept = recorder.finish(...error).catch(() => {});
    } catch {
      return;
    }
    this.#traces.add(kept);
    void kept.then(() => this.#traces.delete(kept));
  }

  #formatAnswer(answer: unknown): string {
    if (this.#settings.formatAnswer) return this.#settings.formatAnswer(answer);
    if (typeof answer === 'string') return answer;
    try {
      return JSON.stringify(answer, null, 2) ?? String(answer);
    } catch {
      return String(answer);
    }
  }

  /** The error a failed run is answered with; `AbortedError` when the client went away. */
  #failure(error: unknown, clientSignal: AbortSignal): ServedRequestError | AbortedError {
    if (this.#cut.signal.aborted) {
      return new ServedRequestError(
        'the server shut down before the run ended; send the request again later',
        { status: 503, code: 'shutting_down', cause: error },
      );
    }
    if (clientSignal.aborted || AbortedError.isInstance(error)) {
      return AbortedError.isInstance(error)
        ? error
        : new AbortedError('@rlm/server: the client went away', { cause: error });
    }
    if (ServedRequestError.isInstance(error)) return error;
    const message = formatErrorLine(error instanceof Error ? error.message : String(error));
    if (ModelCallError.isInstance(error)) {
      return new ServedRequestError(`the model API failed: ${message}`, {
        status: 502,
        code: `model_${error.reason.replaceAll('-', '_')}`,
        cause: error,
      });
    }
    if (SandboxError.isInstance(error)) {
      return new ServedRequestError(`the sandbox failed: ${message}`, {
        status: 500,
        code: 'sandbox_error',
        cause: error,
      });
    }
    return new ServedRequestError(`the run failed: ${message}`, {
      status: 500,
      code: 'run_failed',
      cause: error,
    });
  }
}

const budgetNames = {
  modelCalls: { reason: 'model_calls', limit: 'max_model_calls' },
  tokens: { reason: 'tokens', limit: undefined },
  cost: { reason: 'cost', limit: 'max_cost_usd' },
  wallTime: { reason: 'wall_time', limit: 'max_wall_time_ms' },
} as const;

/** A run that ended without a final answer but with a budget or iterations spent. */
function describeIncomplete(
  error: unknown,
  limits: RunLimits,
): { reason: string; message: string; partialAnswer: string; iterations?: number } | undefined {
  if (BudgetExhaustedError.isInstance(error)) {
    const { reason, limit } = budgetNames[error.budget];
    const maximum =
      limit === 'max_model_calls'
        ? limits.maxModelCalls
        : limit === 'max_wall_time_ms'
          ? limits.maxWallTimeMs
          : limits.maxCostUsd;
    return {
      reason,
      message: `the run spent its ${reason.replace('_', ' ')} budget before answering${limit ? ` (${limit} ${maximum})` : ''}; the answer is partial`,
      partialAnswer: error.partialAnswer ?? '',
    };
  }
  if (NoFinalAnswerError.isInstance(error)) {
    return {
      reason: 'iterations',
      message: `the model gave no final answer after ${error.diagnostics.iterations} steps (${formatErrorLine(error.diagnostics.reason)}); the answer is partial`,
      partialAnswer: error.partialAnswer ?? '',
      iterations: error.diagnostics.iterations,
    };
  }
  return undefined;
}

function ignoreThrow(action: () => void): void {
  try {
    action();
  } catch {
    // Observers never change a run.
  }
}
