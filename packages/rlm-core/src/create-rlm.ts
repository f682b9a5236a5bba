import type { ArtifactStore } from './artifact-store.js';
import { Budget } from './budget.js';
import { ArtifactQuota } from './features/artifacts/artifact-quota.js';
import { artifactsFeature } from './features/artifacts/artifacts-feature.js';
import {
  type ArtifactsSettings,
  type ResolvedArtifactsSettings,
  resolveArtifactsSettings,
} from './features/artifacts/artifacts-settings.js';
import {
  CatalogCachingStore,
  RecordWriteCount,
} from './features/artifacts/catalog-caching-store.js';
import { type ResumeState, resumeStateOf } from './features/artifacts/checkpoints.js';
import { durableToolsFeature } from './features/durable-tools/durable-tools-feature.js';
import type { Feature } from './features/feature.js';
import { hostToolsFeature } from './features/host-tools/host-tools-feature.js';
import { groupedOrFlat } from './flat-settings.js';
import type { DurableToolStore } from './durable-tool-store.js';
import type { CallEvent } from './loop/scheduler.js';
import type { CallState } from './loop/call-state.js';
import { nonNegativeInteger, positiveInteger, positiveNumber } from './settings-checks.js';
import { ConcurrencyGate } from './concurrency-gate.js';
import { ConfigurationError } from './errors/configuration-error.js';
import { resolveLimits } from './loop/limits-settings.js';
import { findModelPrice } from './cost/model-prices.js';
import { ModelPriceError } from './errors/model-price-error.js';
import { ModelChoice, modelIdFor, providerOf } from './model-choice.js';
import { runPrices } from './cost/run-prices.js';
import { BudgetExhaustedError } from './errors/budget-exhausted-error.js';
import { SandboxError } from './errors/sandbox-error.js';
import { EventChannel } from './event-channel.js';
import type { RlmEvent } from './events.js';
import { hashContext } from './hash-context.js';
import { HostToolRegistry } from './features/host-tools/host-tool-registry.js';
import type { HostTool } from './features/host-tools/host-tool.js';
import type { LanguageModel } from './language-model.js';
import type { ModelPrices, QueryOptions, RLM, RLMResult, RLMSettings } from './rlm-settings.js';
import { runKey } from './run-key.js';
import { SchemaCheck } from './schema-check.js';
import type { InferSchemaOutput, Schema } from './schema.js';
import { SessionMemory } from './features/session/session-memory.js';
import type { HostFunction, Sandbox } from './sandbox.js';
import type { CallSetup } from './loop/commands.js';
import type { ResolvedSettings } from './loop/resolved-settings.js';
import { finalRecorderNames } from './loop/final-answer.js';
import { RlmRun } from './rlm-run.js';

/**
 * Creates a Recursive Language Model: `query()` answers a question over a context that lives
 * only inside a sandbox, by letting the model write code there and call itself on pieces.
 */
export function createRLM<OutputSchema extends Schema | undefined = undefined>(
  settings: RLMSettings<OutputSchema>,
): RLM<InferSchemaOutput<OutputSchema>> {
  return new RecursiveLanguageModel(settings) as RLM<InferSchemaOutput<OutputSchema>>;
}

class RecursiveLanguageModel implements RLM {
  readonly #settings: ResolvedSettings;
  readonly #persistent: boolean;
  readonly #budget: RLMSettings['budget'];
  readonly #prices: ModelPrices;
  #sandbox: Promise<Sandbox> | undefined;
  #running: RlmRun | undefined;
  #tail: Promise<unknown> = Promise.resolve();
  /** The persistent session's contexts (`context_0..n`) and `history`, bounded. */
  readonly #session: SessionMemory;
  #currentContext: unknown;
  readonly #artifacts: ArtifactStore | undefined;
  readonly #artifactsSettings: ResolvedArtifactsSettings;
  readonly #hostTools: HostToolRegistry;
  readonly #toolStore: DurableToolStore | undefined;
  readonly #ownFeatures: readonly Feature[];
  /** Record writes through any run's store view, which make the cached catalogs stale. */
  readonly #recordWrites = new RecordWriteCount();
  #disposed = false;
  /** Checkpoint writes still running after their run answered (see `dispose`). */
  readonly #writes = new Set<Promise<void>>();

  constructor(settings: RLMSettings) {
    const models = modelsOf(settings);
    this.#prices = runPrices({ ...models, prices: settings.prices, budget: settings.budget });
    const limits = resolveLimits(settings);
    this.#settings = {
      ...models,
      ...limits,
      modelChoice: modelChoiceOf(models, settings, this.#prices),
      sandboxFactory: settings.sandbox,
      systemPrompt: settings.systemPrompt,
      redactionRatio: positiveNumber(settings.redactionRatio ?? 0.25, 'redactionRatio'),
      redactionMinChars: nonNegativeInteger(
        settings.redactionMinChars ?? 2_000,
        'redactionMinChars',
      ),
      codeLanguages: settings.codeLanguages ?? ['repl'],
      outputSchema: settings.outputSchema
        ? new SchemaCheck(settings.outputSchema, 'outputSchema')
        : undefined,
      commandQueue: {
        strategy: settings.commandQueue?.strategy ?? 'unbounded',
        maxPending: positiveInteger(settings.commandQueue?.maxPending ?? 1_024, 'maxPending'),
      },
      variableSync: settings.variableSync ?? {},
    };
    this.#artifactsSettings = resolveArtifactsSettings(artifactsGroupOf(settings));
    this.#hostTools = new HostToolRegistry(
      groupedOrFlat<readonly HostTool[]>(
        settings.hostTools,
        settings.tools,
        'tools',
        'hostTools',
      ) ?? [],
    );
    this.#toolStore = groupedOrFlat(
      settings.durableTools?.store,
      settings.toolStore,
      'toolStore',
      'durableTools.store',
    );
    this.#ownFeatures = settings.features ?? [];
    this.#persistent =
      groupedOrFlat(
        settings.session?.persistent,
        settings.persistent,
        'persistent',
        'session.persistent',
      ) ?? false;
    const memory = groupedOrFlat(
      settings.session?.memory,
      settings.sessionMemory,
      'sessionMemory',
      'session.memory',
    );
    if (memory && !this.#persistent) {
      throw new TypeError(
        '@rlm/core: session.memory bounds a persistent session; set session.persistent: true or remove it',
      );
    }
    this.#artifacts = this.#artifactsSettings.store;
    this.#session = new SessionMemory(memory, this.#artifacts);
    this.#budget = settings.budget;
  }

  /** The features a run installs, in the order the prompt shows them. */
  #featuresOf(
    storage: { artifacts: ArtifactStore; runKey: string } | undefined,
    resume: ResumeState | undefined,
    budget: Budget,
    startedAt: number,
  ): (emit: (call: CallState, event: CallEvent) => void) => Feature[] {
    return (emit) => {
      const artifacts = this.#artifactsSettings;
      const quota = new ArtifactQuota(artifacts.quotas);
      return [
        ...(storage
          ? [
              artifactsFeature({
                ...storage,
                quota,
                budget,
                startedAt,
                catalogChars: artifacts.catalogChars,
                largeAnswerChars: artifacts.largeAnswerChars,
                checkpointMaxVariableBytes: artifacts.checkpointMaxVariableBytes,
                checkpointMaxLagMs: artifacts.checkpointMaxLagMs,
                ...(resume ? { resume } : {}),
                emit,
              }),
            ]
          : []),
        ...(this.#toolStore
          ? [durableToolsFeature(this.#toolStore, { modelId: this.#settings.llm.modelId })]
          : []),
        hostToolsFeature(this.#hostTools, { artifacts: storage?.artifacts, quota }),
        ...this.#ownFeatures,
      ];
    };
  }

  query(query: string, context?: unknown, options: QueryOptions = {}): Promise<RLMResult> {
    return this.#schedule(() => this.#run(query, context, options, () => {}));
  }

  queryStream(
    query: string,
    context?: unknown,
    options: QueryOptions = {},
  ): AsyncIterable<RlmEvent> {
    const abort = new AbortController();
    const forward = () => abort.abort(options.signal?.reason);
    if (options.signal?.aborted) forward();
    else options.signal?.addEventListener('abort', forward, { once: true });
    const channel = new EventChannel<RlmEvent>({
      isDroppable: (event) => event.type !== 'final' && event.type !== 'call-error',
      onReturn: () => abort.abort(new Error('the event stream was closed')),
    });
    this.#schedule(() =>
      this.#run(query, context, { ...options, signal: abort.signal }, (event) =>
        channel.push(event),
      ),
    )
      .then(
        () => channel.close(),
        (error: unknown) => channel.close({ error }),
      )
      .finally(() => options.signal?.removeEventListener('abort', forward));
    return channel;
  }

  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    const sandbox = this.#sandbox;
    this.#sandbox = undefined;
    try {
      if (sandbox) await (await sandbox.catch(() => undefined))?.dispose();
    } finally {
      // A run answers without waiting for its last checkpoint's write: the store closes after.
      await Promise.all(this.#writes);
    }
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }

  async reset(): Promise<void> {
    await this.#serialize(async () => {
      const sandbox = this.#sandbox;
      this.#sandbox = undefined;
      this.#session.reset();
      this.#currentContext = undefined;
      if (sandbox) await (await sandbox.catch(() => undefined))?.dispose();
    });
  }

  /**
   * In a persistent session, queries run one at a time (they share the sandbox); otherwise each
   * starts at once.
   */
  #schedule<T>(task: () => Promise<T>): Promise<T> {
    return this.#persistent ? this.#serialize(task) : task();
  }

  #serialize<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(task);
    this.#tail = result.catch(() => {});
    return result;
  }

  async #run(
    query: string,
    context: unknown,
    options: QueryOptions,
    emit: (event: RlmEvent) => void,
  ): Promise<RLMResult> {
    if (this.#disposed) {
      throw new SandboxError('@rlm/core: this RLM was disposed; create a new one with createRLM');
    }
    if (typeof query !== 'string' || query.trim().length === 0) {
      throw new TypeError('@rlm/core: query must be a non-empty string');
    }
    if (options.resume && !this.#artifacts) {
      throw new TypeError('@rlm/core: resume needs an artifact store: createRLM({ artifacts })');
    }
    const startedAt = Date.now();
    const budget = new Budget(this.#budget, this.#prices);
    const storage = this.#artifacts ? this.#storageFor(query, context) : undefined;
    const checkpoint =
      storage && options.resume
        ? // The variables' bytes are read in the background, while the model is first asked.
          await storage.artifacts.latestCheckpoint(storage.runKey, { loadSerializedBytes: false })
        : undefined;
    if (checkpoint) budget.restore(checkpoint.budget);
    const resume = checkpoint ? resumeStateOf(checkpoint) : undefined;
    const run = new RlmRun(
      this.#settings,
      { budget, gate: new ConcurrencyGate(this.#settings.maxConcurrency), emit, startedAt },
      this.#featuresOf(storage, resume, budget, startedAt),
    );
    const wallTime = budget.remainingWallTimeMs;
    const timer =
      wallTime === undefined
        ? undefined
        : setTimeout(
            () =>
              run.failRoot(
                new BudgetExhaustedError(
                  `@rlm/core: the wall time budget (${wallTime} ms) is spent; raise budget.maxWallTimeMs`,
                  { budget: 'wallTime' },
                ),
              ),
            Math.max(0, wallTime),
          );
    if (this.#persistent) this.#running = run;
    try {
      const setup = await this.#setup(context, run);
      const final = await run.runRoot(query, context, setup, options.signal);
      if (this.#persistent) {
        this.#session.record({ query, answer: final.answer, iterations: final.iterations });
      }
      return {
        answer: final.answer,
        usage: budget.usage,
        callUsage: run.callUsage,
        iterations: final.iterations,
        depthReached: run.depthReached,
        durationMs: Date.now() - startedAt,
        ...(storage ? { runKey: storage.runKey } : {}),
        ...(final.artifact ? { artifact: final.artifact } : {}),
        ...(checkpoint ? { resumedFrom: checkpoint.iteration } : {}),
      };
    } finally {
      clearTimeout(timer);
      if (this.#running === run) this.#running = undefined;
      const written = run.checkpointsWritten();
      this.#writes.add(written);
      void written.then(() => this.#writes.delete(written));
    }
  }

  /** The run's identity and its own scope of named records. */
  #storageFor(query: string, context: unknown): { artifacts: ArtifactStore; runKey: string } {
    const key = runKey(query, hashContext(context), this.#artifactsSettings.runNamespace);
    const run = this.#artifacts!.scoped(key);
    // The prompt shows the catalog before every model request: it is read again only after
    // a record write (store(), a host tool's outputs).
    const artifacts = new CatalogCachingStore(
      this.#persistent ? this.#session.view(run) : run,
      this.#recordWrites,
    );
    return { artifacts, runKey: key };
  }

  async #setup(context: unknown, run: RlmRun): Promise<CallSetup> {
    if (!this.#persistent) {
      return {
        variables: { context },
        history: [],
        hostVariables: new Set(['context', 'history']),
        counts: { contexts: 1, histories: 0 },
      };
    }
    this.#sandbox ??= this.#settings.sandboxFactory({
      hostFunctions: this.#delegatingHostFunctions(run.hostFunctionNames),
      endingFunctions: finalRecorderNames,
      internalHostFunctions: this.#delegatingHostFunctions(run.internalHostFunctionNames),
      guestHelpers: run.guestHelpers,
      limits: { ...this.#settings.sandboxLimits, timeoutMs: this.#settings.execTimeoutMs },
    });
    let sandbox: Sandbox;
    try {
      sandbox = await this.#sandbox;
    } catch (error) {
      this.#sandbox = undefined;
      throw error;
    }
    // A context given again (the same object) is not sent again: it is already in the sandbox.
    const { index, added } = this.#session.admit(context);
    const variables: Record<string, unknown> = { ...(await this.#session.enforce(index)) };
    if (added) variables[`context_${index}`] = context;
    if (this.#currentContext !== context || this.#session.counts.contexts === 1) {
      variables.context = context;
      this.#currentContext = context;
    }
    return {
      sandbox,
      variables,
      history: this.#session.history,
      hostVariables: new Set(['context', 'history', ...this.#session.contextNames]),
      counts: this.#session.setupCounts,
    };
  }

  /** Host functions of the persistent sandbox: they reach whichever query is running. */
  #delegatingHostFunctions(names: readonly string[]): Record<string, HostFunction> {
    return Object.fromEntries(
      names.map((name) => [
        name,
        (...args: unknown[]) => {
          const target = this.#running?.rootHostFunctions[name];
          return target
            ? target(...args)
            : Promise.reject(new Error(`${name}: no query is running`));
        },
      ]),
    );
  }
}

/** The root model and the sub model of a run. */
interface RunModels {
  readonly llm: LanguageModel;
  readonly subLlm: LanguageModel;
}

/**
 * `model` and `subModel`, or their deprecated flat names `llm` and `subLlm`.
 *
 * @throws {ConfigurationError} without a model, or for a flat name and its new name set to
 * different models.
 */
function modelsOf(settings: RLMSettings): RunModels {
  const llm = groupedOrFlat(settings.model, settings.llm, 'llm', 'model');
  if (llm === undefined) {
    throw new ConfigurationError(
      '@rlm/core: createRLM needs a model; pass createRLM({ model, sandbox })',
      { setting: 'model' },
    );
  }
  return {
    llm,
    subLlm: groupedOrFlat(settings.subModel, settings.subLlm, 'subLlm', 'subModel') ?? llm,
  };
}

/**
 * What model code may choose per call (`subModels`): the listed ids without their provider
 * prefix, each priced under a cost budget.
 *
 * @throws {TypeError} for a list that is not of non-empty strings.
 * @throws {ModelPriceError} for a listed model without a price under `budget.maxCostUsd`.
 */
function modelChoiceOf(models: RunModels, settings: RLMSettings, prices: ModelPrices): ModelChoice {
  const costBounded = settings.budget?.maxCostUsd !== undefined;
  const listed = settings.subModels;
  if (listed === undefined) return new ModelChoice({ allowed: undefined, prices, costBounded });
  const plain = models.subLlm;
  if (
    !Array.isArray(listed) ||
    listed.some((id) => typeof id !== 'string' || id.trim().length === 0)
  ) {
    throw new TypeError('@rlm/core: subModels must be a list of model ids (non-empty strings)');
  }
  const allowed = [
    ...new Set(listed.map((id) => modelIdFor(modelIdFor(id.trim(), plain), models.llm))),
  ];
  const provider = providerOf(plain.modelId);
  for (const modelId of costBounded ? allowed : []) {
    const qualified = provider ? `${provider}:${modelId}` : modelId;
    if (!findModelPrice(prices, qualified)) {
      throw new ModelPriceError(
        `@rlm/core: budget.maxCostUsd needs a price for the sub model '${modelId}', which has none; give one in createRLM({ prices }) or leave it out of subModels`,
        { modelId },
      );
    }
  }
  return new ModelChoice({ allowed, prices, costBounded });
}

/**
 * The artifacts group as given: `artifacts: { store, ... }`, or the deprecated forms (a bare
 * store, flat names), each flat name warned about once.
 */
function artifactsGroupOf(settings: RLMSettings): Partial<ArtifactsSettings> | undefined {
  const given = settings.artifacts;
  const bareStore = given !== undefined && typeof (given as ArtifactStore).store === 'function';
  const group: Partial<ArtifactsSettings> = bareStore
    ? { store: given as ArtifactStore }
    : ((given as ArtifactsSettings | undefined) ?? {});
  const maxVariableBytes = groupedOrFlat(
    group.checkpoints?.maxVariableBytes,
    settings.checkpointMaxVariableBytes,
    'checkpointMaxVariableBytes',
    'artifacts.checkpoints.maxVariableBytes',
  );
  const maxLagMs = groupedOrFlat(
    group.checkpoints?.maxLagMs,
    settings.checkpointMaxLagMs,
    'checkpointMaxLagMs',
    'artifacts.checkpoints.maxLagMs',
  );
  const largeAnswerChars = groupedOrFlat(
    group.largeAnswerChars,
    settings.largeAnswerChars,
    'largeAnswerChars',
    'artifacts.largeAnswerChars',
  );
  const catalogChars = groupedOrFlat(
    group.catalogChars,
    settings.catalogChars,
    'catalogChars',
    'artifacts.catalogChars',
  );
  const quotas = groupedOrFlat(group.quotas, settings.quotas, 'quotas', 'artifacts.quotas');
  return {
    ...(group.store ? { store: group.store } : {}),
    checkpoints: {
      ...(maxVariableBytes === undefined ? {} : { maxVariableBytes }),
      ...(maxLagMs === undefined ? {} : { maxLagMs }),
    },
    ...(largeAnswerChars === undefined ? {} : { largeAnswerChars }),
    ...(catalogChars === undefined ? {} : { catalogChars }),
    ...(quotas === undefined ? {} : { quotas }),
    ...(group.runNamespace === undefined ? {} : { runNamespace: group.runNamespace }),
  };
}
