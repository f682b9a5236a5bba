import { boundHistory } from './bound-history.js';
import {
  type BridgeHandler,
  type BridgeOutcome,
  type BridgeRequest,
  BridgeRouter,
} from './bridge/bridge-router.js';
import { describeValue } from './bridge/describe-value.js';
import { measurePlainData } from './bridge/measure-plain-data.js';
import { readPrompt, readPrompts, toJsonText } from './bridge/read-prompt.js';
import {
  artifactFunctionNames,
  callArtifactFunction,
  isArtifactFunction,
} from './artifact-functions.js';
import type { ArtifactRef, ArtifactStore } from './artifact-store.js';
import type { Budget } from './budget.js';
import { type CallUsage, CallUsageLedger } from './cost/call-usage-ledger.js';
import { appendMessage, type CallState, type PendingFinal } from './call-state.js';
import { unrestoredWarning } from './background-restore.js';
import { Checkpointer } from './checkpointer.js';
import { type ResumeState, restoredNames, resumeNote } from './checkpoints.js';
import { describeContext, measure } from './describe-context.js';
import { AbortedError } from './errors/aborted-error.js';
import { BudgetExhaustedError } from './errors/budget-exhausted-error.js';
import { ModelCallError } from './errors/model-call-error.js';
import { NoFinalAnswerError } from './errors/no-final-answer-error.js';
import type { FinalSource, RlmEvent } from './events.js';
import { argumentsExcerpt, eventExcerpt } from './event-excerpt.js';
import { findFinalAnswer } from './find-final-answer.js';
import type {
  GenerateRequest,
  GenerateResult,
  LanguageModel,
  ToolCall,
  ToolDefinition,
  ToolResultPart,
} from './language-model.js';
import type { DurableToolStore } from './durable-tool-store.js';
import { DurableToolSession, toolGuestHelper, toolPromptVersion } from './durable-tools.js';
import type { HostToolRegistry } from './host-tools.js';
import { checkAnswer } from './output-check.js';
import type { SchemaCheck } from './schema-check.js';
import type { SessionCounts } from './session-memory.js';
import { parseResponse } from './parse-response.js';
import { planCodeBlocks } from './plan-code-blocks.js';
import { coreVersion } from './core-version.js';
import {
  buildContextMessage,
  buildContinueMessage,
  buildExtractMessage,
  buildResponseNotes,
  buildSystemPrompt,
  formatExecution,
} from './prompts.js';
import { renderArtifactCatalog } from './prompt/render-artifact-catalog.js';
import { renderKnownTools } from './prompt/render-known-tools.js';
import { ArtifactQuota, type QuotaSettings } from './quotas/artifact-quota.js';
import type { CommandQueueSettings } from './rlm-settings.js';
import { ConcurrencyGate } from './concurrency-gate.js';
import type { HostFunction, Sandbox, SandboxFactory, SandboxLimits } from './sandbox.js';
import {
  buildSubmitTool,
  readSubmitCall,
  type SubmitRequest,
  submitToolName,
} from './submit-tool.js';
import { redactLargeOutput, truncateOutput } from './truncate-output.js';
import {
  formatVariables,
  type VariableSyncReason,
  type VariableSyncSettings,
  VariableSpace,
} from './variable-space.js';

/** Settings the scheduler runs with, all defaults applied. */
export interface ResolvedSettings {
  readonly llm: LanguageModel;
  readonly subLlm: LanguageModel;
  readonly sandboxFactory: SandboxFactory;
  readonly maxDepth: number;
  readonly maxIterations: number;
  readonly systemPrompt: string | undefined;
  readonly maxOutputChars: number;
  readonly maxCodeBlocksPerResponse: number;
  readonly maxResponseChars: number;
  readonly redactionRatio: number;
  readonly redactionMinChars: number;
  readonly codeLanguages: readonly string[];
  readonly execTimeoutMs: number;
  readonly sandboxLimits: Partial<SandboxLimits>;
  readonly maxResponseTokens: number | undefined;
  readonly outputSchema: SchemaCheck | undefined;
  readonly stallLimit: number;
  readonly historyBudgetChars: number;
  readonly commandQueue: Required<CommandQueueSettings>;
  readonly variableSync: VariableSyncSettings;
  readonly tools: HostToolRegistry;
  readonly toolStore: DurableToolStore | undefined;
  readonly largeAnswerChars: number;
  readonly catalogChars: number;
  readonly checkpointMaxVariableBytes: number;
  readonly quotas: Required<QuotaSettings>;
  readonly maxConcurrentChildren: number;
}

/** Host functions every sandbox gets, as model code calls them. */
const coreFunctionNames = [
  'llm_query',
  'llm_query_batched',
  'sub_rlm',
  'SUBMIT',
  'FINAL_VAR',
  'SHOW_VARS',
];
/** Host functions added when a durable tool store is configured. */
const durableToolFunctionNames = ['delegate'];
/**
 * Host functions only the `tool` guest helper holds (see `SandboxOptions.internalHostFunctions`):
 * model code cannot name them, so the outcomes they record come from the helper's own runs.
 */
const durableToolInternalNames = ['__tool_plan', '__tool_report'];

/** Names of the host functions a sandbox gets under these settings. */
export function hostFunctionNames(settings: ResolvedSettings, withArtifacts: boolean): string[] {
  return [
    ...coreFunctionNames,
    ...(withArtifacts ? artifactFunctionNames : []),
    ...(settings.toolStore ? durableToolFunctionNames : []),
    ...settings.tools.names,
  ];
}

/** Names of the host functions only guest helpers hold, under these settings. */
export function internalHostFunctionNames(settings: ResolvedSettings): string[] {
  return settings.toolStore ? durableToolInternalNames : [];
}

/** Host functions that record a final answer instead of going through the bridge. */
const finalRecorders: Readonly<Record<string, (arg: unknown) => PendingFinal | string>> = {
  SUBMIT: (value) =>
    value === undefined
      ? 'SUBMIT(value) needs a value; got undefined'
      : { kind: 'value', value, source: 'submit-code' },
  FINAL_VAR: (name) =>
    typeof name === 'string' && name.trim().length > 0
      ? { kind: 'variable', variable: name, source: 'final-var' }
      : `FINAL_VAR(name) needs the variable name as a string, e.g. FINAL_VAR("answer"); got ${describeValue(name)}`,
};

/** Functions written in JavaScript that every sandbox gets under these settings. */
export function guestHelpersFor(settings: ResolvedSettings): Record<string, string> {
  return settings.toolStore ? { tool: toolGuestHelper } : {};
}

/** The commands of the scheduler's state machine, consumed one at a time. */
type Command =
  | { readonly type: 'StartCall'; readonly call: CallState; readonly setup: CallSetup }
  | { readonly type: 'GenerateStep'; readonly callId: string }
  | { readonly type: 'ExecuteCode'; readonly callId: string; readonly response: GenerateResult }
  | {
      readonly type: 'CodeExecuted';
      readonly callId: string;
      readonly response: GenerateResult;
      readonly outputs: readonly string[];
      readonly toolResults: readonly ToolResultPart[];
      /** What the model is told about blocks that did not run (cut off, past the limit). */
      readonly notes: readonly string[];
    }
  | { readonly type: 'HandleBridgeCall'; readonly callId: string; readonly requestId: string }
  | { readonly type: 'BlockEnded'; readonly callId: string }
  | {
      readonly type: 'Finalize';
      readonly callId: string;
      readonly answer: unknown;
      readonly source: FinalSource;
      readonly artifact?: ArtifactRef;
    }
  | { readonly type: 'FailCall'; readonly callId: string; readonly error: unknown };

/** How a call gets its sandbox and its first variables. */
export interface CallSetup {
  /** An existing sandbox to use (the persistent root's); otherwise one is created. */
  readonly sandbox?: Sandbox;
  /** Variables to set read-only before the first step. */
  readonly variables: Readonly<Record<string, unknown>>;
  /** Counts shown in the prompt's metadata. */
  readonly counts: SessionCounts;
  /** Continue from this checkpoint state instead of starting fresh. */
  readonly resume?: ResumeState;
  /** Names the host sets (context, history): never checkpointed. */
  readonly hostVariables: ReadonlySet<string>;
}

/** Shared state of one top-level run: the budget, gate and event sink all calls use. */
export interface RunResources {
  readonly budget: Budget;
  readonly gate: ConcurrencyGate;
  readonly emit: (event: RlmEvent) => void;
  /** When the run started (ms since the epoch). */
  readonly startedAt: number;
  /** The run's storage: the store scoped to `runKey`. */
  readonly storage?: { readonly artifacts: ArtifactStore; readonly runKey: string };
}

/**
 * The serialized state machine of one top-level run and all of its `sub_rlm` children. Every
 * state change happens in one command handler at a time; slow work (model calls, code
 * execution, sandbox creation) runs outside and re-enters as a new command. Each bridge
 * request settles exactly once, and every call releases its sandbox, children and pending
 * requests when it finalizes or fails.
 */
export class Scheduler {
  readonly #settings: ResolvedSettings;
  readonly #resources: RunResources;
  readonly #queue: Command[] = [];
  readonly #calls = new Map<string, CallState>();
  readonly #bridge: BridgeRouter;
  readonly #artifactQuota: ArtifactQuota;
  /** Slots for child sandboxes: one is held from before a child's sandbox is created until it is disposed. */
  readonly #childSandboxSlots: ConcurrencyGate;
  /** Gives back the slot of each child call holding one. */
  readonly #childSlotReleases = new Map<string, () => void>();
  #draining = false;
  #toolsDisabled = false;
  #submitToolDefinition: ToolDefinition | undefined;
  #nextId = 0;
  #depthReached = 0;
  #rootHostFunctions: Record<string, HostFunction> | undefined;
  readonly #hostVariables = new Map<string, ReadonlySet<string>>();
  /** The root call's checkpoints, when the run has storage. */
  #checkpointer: Checkpointer | undefined;
  readonly #durableTools: DurableToolSession | undefined;
  readonly #callUsage = new CallUsageLedger();
  #knownTools: Promise<string> | undefined;

  constructor(settings: ResolvedSettings, resources: RunResources) {
    this.#settings = settings;
    this.#resources = resources;
    this.#artifactQuota = new ArtifactQuota(settings.quotas);
    this.#childSandboxSlots = new ConcurrencyGate(settings.maxConcurrentChildren);
    this.#bridge = new BridgeRouter(settings.commandQueue, {
      settled: (request, outcome) => this.#bridgeSettled(request, outcome),
      overloaded: (callId, backlog) => {
        const call = this.#calls.get(callId);
        if (!call) return;
        this.#emit(call, {
          type: 'warning',
          code: 'queue-overload',
          message: `${backlog} host calls are pending (commandQueue.maxPending is ${settings.commandQueue.maxPending})`,
        });
      },
    });
    this.#durableTools = settings.toolStore
      ? new DurableToolSession(settings.toolStore, {
          runtime: { runtimeVersion: coreVersion, promptVersion: toolPromptVersion },
          modelId: settings.llm.modelId,
        })
      : undefined;
  }

  /** Deepest call depth started so far. */
  get depthReached(): number {
    return this.#depthReached;
  }

  /** Usage per call of the tree so far, in start order (see {@link CallUsage}). */
  get callUsage(): CallUsage[] {
    return this.#callUsage.entries;
  }

  /** Resolves once no checkpoint of the run is being written (after the answer, too). */
  checkpointsWritten(): Promise<void> {
    return this.#checkpointer?.saved() ?? Promise.resolve();
  }

  /** Calls and bridge requests still open: both 0 once a run has ended. */
  get openCounts(): { calls: number; bridgeRequests: number } {
    return { calls: this.#calls.size, bridgeRequests: this.#bridge.size };
  }

  /**
   * Starts the root call. Resolves with its answer; rejects with its error. `signal` aborts the
   * whole tree.
   */
  runRoot(
    query: string,
    context: unknown,
    setup: CallSetup,
    signal: AbortSignal | undefined,
  ): Promise<{ answer: unknown; source: FinalSource; iterations: number; artifact?: ArtifactRef }> {
    return new Promise((resolve, reject) => {
      const call = this.#createCall(query, context, 0, undefined, { resolve, reject });
      this.#enqueue({ type: 'StartCall', call, setup });
      if (!signal) return;
      const onAbort = () =>
        this.#enqueue({
          type: 'FailCall',
          callId: call.id,
          error: new AbortedError(undefined, { cause: signal.reason }),
        });
      if (signal.aborted) {
        onAbort();
        return;
      }
      signal.addEventListener('abort', onAbort, { once: true });
      call.abort.signal.addEventListener(
        'abort',
        () => signal.removeEventListener('abort', onAbort),
        {
          once: true,
        },
      );
    });
  }

  /** Ends the root call with `error` (used for the wall-time budget). */
  failRoot(error: unknown): void {
    for (const call of this.#calls.values()) {
      if (call.parentId === undefined) this.#enqueue({ type: 'FailCall', callId: call.id, error });
    }
  }

  #createCall(
    query: string,
    context: unknown,
    depth: number,
    parentId: string | undefined,
    settlement: CallState['settlement'],
  ): CallState {
    this.#nextId += 1;
    this.#depthReached = Math.max(this.#depthReached, depth);
    return {
      id: `call-${this.#nextId}`,
      depth,
      query,
      context,
      contextLength: measure(context),
      parentId,
      abort: new AbortController(),
      settlement,
      children: new Set(),
      bridgeRequests: new Set(),
      messages: [],
      sandbox: undefined,
      variables: undefined,
      ownsSandbox: true,
      iteration: 0,
      stepStartedAt: 0,
      pendingFinal: undefined,
      lastText: '',
      emptyStreak: 0,
      done: false,
    };
  }

  #enqueue(command: Command): void {
    this.#queue.push(command);
    if (this.#draining) return;
    this.#draining = true;
    try {
      for (let next = this.#queue.shift(); next; next = this.#queue.shift()) {
        try {
          this.#handle(next);
        } catch (error) {
          // A handler's throw fails the call the command names: it is never lost.
          const callId = next.type === 'StartCall' ? next.call.id : next.callId;
          this.#queue.push({ type: 'FailCall', callId, error });
        }
      }
    } finally {
      this.#draining = false;
    }
  }

  /** Runs `work` outside the queue; its result re-enters as a command, its failure as FailCall. */
  #spawn(call: CallState, work: () => Promise<Command | undefined>): void {
    work().then(
      (command) => {
        if (command) this.#enqueue(command);
      },
      (error: unknown) => this.#enqueue({ type: 'FailCall', callId: call.id, error }),
    );
  }

  #liveCall(callId: string): CallState | undefined {
    const call = this.#calls.get(callId);
    return call && !call.done ? call : undefined;
  }

  #emit(call: CallState, event: DistributiveOmit<RlmEvent, 'callId' | 'depth'>): void {
    try {
      this.#resources.emit({
        ...event,
        callId: call.id,
        depth: call.depth,
        at: Date.now(),
      } as RlmEvent);
    } catch {
      // Telemetry is best-effort: a failing consumer never breaks the loop.
    }
  }

  #handle(command: Command): void {
    switch (command.type) {
      case 'StartCall':
        this.#startCall(command.call, command.setup);
        break;
      case 'GenerateStep':
        this.#generateStep(command.callId);
        break;
      case 'ExecuteCode':
        this.#executeCode(command.callId, command.response);
        break;
      case 'CodeExecuted':
        this.#codeExecuted(command);
        break;
      case 'HandleBridgeCall':
        this.#handleBridgeCall(command.requestId);
        break;
      case 'BlockEnded':
        this.#cancelBlockRequests(command.callId);
        break;
      case 'Finalize':
        this.#finalize(command);
        break;
      case 'FailCall':
        this.#failCall(command.callId, command.error);
        break;
    }
  }

  #startCall(call: CallState, setup: CallSetup): void {
    this.#calls.set(call.id, call);
    this.#callUsage.open(call.id, call.parentId ? 'sub_rlm' : 'root', call.parentId);
    const parent = call.parentId ? this.#calls.get(call.parentId) : undefined;
    parent?.children.add(call.id);
    this.#emit(call, {
      type: 'call-start',
      query: call.query,
      ...(call.parentId ? { parentCallId: call.parentId } : {}),
    });
    call.messages.push({
      role: 'user',
      content: buildContextMessage(call.query, describeContext(call.context), setup.counts),
    });
    this.#spawn(call, async () => {
      if (setup.sandbox) {
        call.sandbox = setup.sandbox;
        call.ownsSandbox = false;
      } else {
        const sandbox = await this.#createSandbox(call);
        if (!sandbox) return undefined;
        call.sandbox = sandbox;
      }
      call.variables = new VariableSpace(call.sandbox, this.#settings.variableSync);
      await call.variables.injectAll(setup.variables, true);
      if (setup.resume) await this.#resume(call, setup.resume);
      await this.#syncVariables(call, 'start');
      return { type: 'GenerateStep', callId: call.id };
    });
    this.#hostVariables.set(call.id, setup.hostVariables);
  }

  /**
   * Creates a call's own sandbox. A child first waits for a slot (`maxConcurrentChildren`),
   * held until its sandbox is disposed. Returns `undefined` when the call ended meanwhile.
   */
  async #createSandbox(call: CallState): Promise<Sandbox | undefined> {
    if (call.parentId !== undefined) {
      const release = await this.#childSandboxSlots.hold(call.abort.signal);
      if (call.done) {
        release();
        return undefined;
      }
      this.#childSlotReleases.set(call.id, release);
    }
    let sandbox: Sandbox;
    try {
      sandbox = await this.#settings.sandboxFactory({
        hostFunctions: this.#hostFunctions(
          call.id,
          hostFunctionNames(this.#settings, this.#resources.storage !== undefined),
        ),
        internalHostFunctions: this.#hostFunctions(
          call.id,
          internalHostFunctionNames(this.#settings),
        ),
        guestHelpers: guestHelpersFor(this.#settings),
        limits: { ...this.#settings.sandboxLimits, timeoutMs: this.#settings.execTimeoutMs },
      });
    } catch (error) {
      this.#releaseChildSlot(call.id);
      throw error;
    }
    if (call.done) {
      await sandbox.dispose().catch(() => {});
      this.#releaseChildSlot(call.id);
      return undefined;
    }
    return sandbox;
  }

  #releaseChildSlot(callId: string): void {
    this.#childSlotReleases.get(callId)?.();
    this.#childSlotReleases.delete(callId);
  }

  /**
   * Restores a checkpoint's transcript, iteration and JSON variables into a starting call; its
   * serialised variables are restored in the background (see `Checkpointer.resume`).
   */
  async #resume(call: CallState, resumed: ResumeState): Promise<void> {
    await call.variables!.injectAll(resumed.variables);
    const state = this.#checkpointerFor(call)?.resume(call.sandbox!, resumed) ?? resumed;
    call.messages.splice(0, call.messages.length, ...state.transcript);
    call.iteration = state.iteration;
    appendMessage(call.messages, { role: 'user', content: resumeNote(state) });
    this.#emit(call, {
      type: 'resumed',
      iteration: state.iteration,
      restored: restoredNames(state),
      lost: state.lost,
    });
  }

  /**
   * Starts a checkpoint of the root call after an executed step, off the critical path (see
   * {@link Checkpointer}); a failure only warns.
   */
  #checkpoint(call: CallState): void {
    const storage = this.#resources.storage;
    const checkpointer = this.#checkpointerFor(call);
    if (!storage || !checkpointer) return;
    checkpointer.start(call, {
      runKey: storage.runKey,
      budget: this.#resources.budget,
      startedAt: this.#resources.startedAt,
      hostVariables: this.#hostVariables.get(call.id) ?? new Set(),
      maxVariableBytes: this.#settings.checkpointMaxVariableBytes,
    });
  }

  /** The root call's checkpointer (made on first use), or `undefined` without storage. */
  #checkpointerFor(call: CallState): Checkpointer | undefined {
    const storage = this.#resources.storage;
    if (!storage || call.parentId !== undefined) return undefined;
    this.#checkpointer ??= new Checkpointer(storage.artifacts, {
      saved: (summary, iteration, durationMs) =>
        this.#emit(call, { type: 'checkpoint', iteration, checkpointId: summary.id, durationMs }),
      skipped: (variables) =>
        this.#emit(call, {
          type: 'warning',
          code: 'checkpoint-variable-skipped',
          message: `Not saved in the checkpoint (over checkpointMaxVariableBytes, ${this.#settings.checkpointMaxVariableBytes} bytes): ${variables.map((variable) => variable.name).join(', ')}`,
        }),
      failed: (error) =>
        this.#emit(call, {
          type: 'warning',
          code: 'checkpoint-failed',
          message: `Could not save a checkpoint: ${errorMessage(error)}`,
        }),
      unrestored: (variables) =>
        this.#emit(call, {
          type: 'warning',
          code: 'resume-variables-lost',
          message: unrestoredWarning(variables),
        }),
    });
    return this.#checkpointer;
  }

  /** Refreshes the call's variable listing and publishes the outcome. */
  async #syncVariables(call: CallState, reason: VariableSyncReason): Promise<void> {
    const outcome = await call.variables!.sync(call.iteration);
    if (outcome.ok) {
      this.#emit(call, {
        type: 'variables-updated',
        reason,
        iteration: call.iteration,
        variables: outcome.snapshot.variables,
        freshness: outcome.snapshot.freshness,
      });
    } else {
      this.#emit(call, {
        type: 'variable-sync-failed',
        reason,
        message: outcome.message,
        retries: outcome.retries,
        timedOut: outcome.timedOut,
      });
    }
  }

  /**
   * The host functions model code can call. Bound to a call id rather than a call object, so a
   * persistent sandbox's functions always reach the call that is running now.
   */
  hostFunctionsFor(
    resolveCallId: () => string | undefined,
    names: readonly string[],
  ): Record<string, HostFunction> {
    return Object.fromEntries(
      names.map((name) => {
        const recordFinal = finalRecorders[name];
        const hostFunction: HostFunction = (...args) => {
          const callId = resolveCallId();
          const call = callId ? this.#liveCall(callId) : undefined;
          if (!call) return Promise.reject(new Error(`${name}: no query is running`));
          if (!recordFinal) return this.#openBridgeRequest(call, name, args);
          // SUBMIT and FINAL_VAR only record the answer: it is read once the code has run.
          const final = recordFinal(args[0]);
          if (typeof final === 'string') return Promise.reject(new Error(final));
          call.pendingFinal ??= final;
          return Promise.resolve(undefined);
        };
        return [name, hostFunction];
      }),
    );
  }

  #hostFunctions(callId: string, names: readonly string[]): Record<string, HostFunction> {
    return this.hostFunctionsFor(() => callId, names);
  }

  /** Host functions bound to whichever root call is running: for a persistent sandbox. */
  get rootHostFunctions(): Record<string, HostFunction> {
    this.#rootHostFunctions ??= this.hostFunctionsFor(() => {
      for (const call of this.#calls.values()) if (call.parentId === undefined) return call.id;
      return undefined;
    }, [
      ...hostFunctionNames(this.#settings, this.#resources.storage !== undefined),
      ...internalHostFunctionNames(this.#settings),
    ]);
    return this.#rootHostFunctions;
  }

  /** Admits a host call from model code and queues its dispatch; settles exactly once. */
  #openBridgeRequest(call: CallState, name: string, args: readonly unknown[]): Promise<unknown> {
    const admission = this.#bridge.admit(call.id, name, args);
    if ('refusal' in admission) return Promise.reject(admission.refusal);
    const { request, result } = admission;
    call.bridgeRequests.add(request.id);
    this.#emit(call, {
      type: 'bridge-call',
      requestId: request.id,
      name,
      argumentsExcerpt: argumentsExcerpt(args),
    });
    this.#enqueue({ type: 'HandleBridgeCall', callId: call.id, requestId: request.id });
    return result;
  }

  /** Publishes a settled request and forgets it on its call. */
  #bridgeSettled(request: BridgeRequest, outcome: BridgeOutcome): void {
    const call = this.#calls.get(request.callId);
    if (!call) return;
    call.bridgeRequests.delete(request.id);
    this.#emit(call, {
      type: 'bridge-result',
      requestId: request.id,
      name: request.name,
      ok: outcome.ok,
      durationMs: Date.now() - request.startedAt,
      ...(outcome.ok
        ? { resultExcerpt: eventExcerpt(outcome.value) }
        : { error: outcome.error.message }),
    });
  }

  /**
   * A code block has ended: host calls it started and did not await are cancelled, so their
   * model calls, children and host work stop (the sandbox has already abandoned them).
   */
  #cancelBlockRequests(callId: string): void {
    const call = this.#liveCall(callId);
    if (!call) return;
    for (const requestId of [...call.bridgeRequests]) {
      const name = this.#bridge.get(requestId)?.name ?? 'the host call';
      this.#refuseBridge(
        requestId,
        `${name} was cancelled: the code block that started it ended first; await host calls inside the block`,
      );
    }
  }

  /** Ends a request with an error model code sees. */
  #refuseBridge(requestId: string, message: string): void {
    this.#bridge.settle(requestId, { ok: false, error: new Error(message) });
  }

  #handleBridgeCall(requestId: string): void {
    const request = this.#bridge.get(requestId);
    if (!request) return;
    const call = this.#liveCall(request.callId);
    if (!call) {
      this.#refuseBridge(requestId, 'the calling query has ended');
      return;
    }
    this.#bridge.dispatch(requestId, this.#bridgeHandler(call, request.name));
  }

  /** The handler of one host function for `call`: it may throw or reject; the router settles. */
  #bridgeHandler(call: CallState, name: string): BridgeHandler {
    switch (name) {
      case 'llm_query':
        return (request) =>
          this.#plainCall(call, readPrompt(request.args[0], 'llm_query(prompt)'), request);
      case 'llm_query_batched':
        return (request) => {
          const prompts = readPrompts(request.args[0], 'llm_query_batched(prompts)');
          return Promise.all(prompts.map((prompt) => this.#plainCall(call, prompt, request)));
        };
      case 'sub_rlm':
        return (request) => {
          const [query, context] = request.args;
          if (typeof query !== 'string' || query.trim().length === 0) {
            throw new Error(
              `sub_rlm(query, context) needs a non-empty query string; got ${describeValue(query)}`,
            );
          }
          if (call.depth + 1 >= this.#settings.maxDepth) {
            return this.#plainCall(call, plainSubQueryPrompt(query, context), request);
          }
          request.waiting = false;
          return this.#startChild(call, query, context, request.abort.signal);
        };
      default:
        return (request) => {
          request.waiting = false;
          return this.#hostCall(call, request);
        };
    }
  }

  /** Artifact functions and host tools: no model involved. */
  #hostCall(call: CallState, request: BridgeRequest): Promise<unknown> {
    const artifacts = this.#resources.storage?.artifacts;
    const signal = request.abort.signal;
    if (this.#settings.tools.has(request.name)) {
      return this.#settings.tools.call(
        request.name,
        request.args,
        artifacts,
        signal,
        this.#artifactQuota,
      );
    }
    if (request.name === 'SHOW_VARS') {
      return call.sandbox!.listVariables().then((variables) =>
        formatVariables({
          variables,
          iteration: call.iteration,
          syncedAt: Date.now(),
          freshness: 'fresh',
        }),
      );
    }
    const durable = this.#durableTools;
    if (durable) {
      switch (request.name) {
        case 'delegate':
          return durable.declare(request.args);
        case '__tool_plan':
          return durable.plan(
            request.args,
            async (system, prompt) => {
              const result = await this.#generate(
                call,
                this.#settings.llm,
                { system, messages: [{ role: 'user', content: prompt }], singleUse: true },
                request,
              );
              return result.text;
            },
            call.id,
            (activity) => this.#emit(call, activity),
          );
        case '__tool_report':
          return durable.report(request.args, call.id, (activity) => this.#emit(call, activity));
      }
    }
    if (artifacts && isArtifactFunction(request.name)) {
      return callArtifactFunction(
        request.name,
        request.args,
        artifacts,
        { callId: call.id, iteration: call.iteration },
        this.#artifactQuota,
      );
    }
    return Promise.reject(new Error(`unknown host function ${request.name}`));
  }

  /**
   * Starts a `sub_rlm` child call; resolves with its answer, rejects with its error. When
   * `signal` aborts (its request ended early), the child fails and releases what it holds.
   */
  #startChild(
    parent: CallState,
    query: string,
    context: unknown,
    signal: AbortSignal,
  ): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const child = this.#createCall(query, context, parent.depth + 1, parent.id, {
        resolve: ({ answer }) => resolve(answer),
        reject,
      });
      signal.addEventListener(
        'abort',
        () =>
          this.#enqueue({
            type: 'FailCall',
            callId: child.id,
            error: new AbortedError('@rlm/core: the sub_rlm call that started it ended early'),
          }),
        { once: true },
      );
      this.#enqueue({
        type: 'StartCall',
        call: child,
        setup: {
          variables: { context },
          hostVariables: new Set(['context']),
          counts: { contexts: 1, histories: 0 },
        },
      });
    });
  }

  /** One plain model call (no REPL) for a bridge request, through the shared gate and budget. */
  async #plainCall(call: CallState, prompt: string, request: BridgeRequest): Promise<string> {
    const result = await this.#generate(
      call,
      this.#settings.subLlm,
      {
        system: 'Answer the request accurately and concisely.',
        messages: [{ role: 'user', content: prompt }],
        singleUse: true,
      },
      request,
    );
    return result.text;
  }

  /**
   * One model call: waits for a gate slot, reserves budget, records usage. For a bridge
   * request, its own abort signal also applies and it stops counting as waiting once running.
   */
  async #generate(
    call: CallState,
    model: LanguageModel,
    request: Omit<GenerateRequest, 'maxTokens'>,
    bridgeRequest?: BridgeRequest,
  ): Promise<GenerateResult> {
    const { budget, gate } = this.#resources;
    const signal = bridgeRequest ? bridgeRequest.abort.signal : call.abort.signal;
    const usageEntry = this.#usageEntryOf(call, bridgeRequest);
    const result = await gate.run(() => {
      if (bridgeRequest) bridgeRequest.waiting = false;
      budget.reserveModelCall();
      return model.generate(
        this.#settings.maxResponseTokens === undefined
          ? request
          : { ...request, maxTokens: this.#settings.maxResponseTokens },
        {
          signal,
          // A loop step's text as it streams in; a host call's (llm_query) is not shown.
          ...(bridgeRequest
            ? {}
            : {
                onText: (delta: string) =>
                  this.#emit(call, { type: 'text-delta', iteration: call.iteration, text: delta }),
              }),
          onRetry: (retry) =>
            this.#emit(call, {
              type: 'model-retry',
              ...retry,
              ...(bridgeRequest ? { requestId: bridgeRequest.id } : {}),
            }),
        },
      );
    }, signal);
    const costUsd = budget.record(result.usage, model.modelId);
    this.#callUsage.add(usageEntry, result.usage, costUsd);
    this.#emit(call, {
      type: 'usage',
      usage: result.usage,
      modelId: model.modelId,
      ...(costUsd === undefined ? {} : { costUsd }),
      modelCalls: budget.usage.modelCalls,
      ...(bridgeRequest ? { requestId: bridgeRequest.id } : {}),
    });
    return result;
  }

  /**
   * The usage entry a model call counts in: its own for a plain `llm_query` /
   * `llm_query_batched` / last-depth `sub_rlm` host call, else the calling RLM call's.
   */
  #usageEntryOf(call: CallState, bridgeRequest: BridgeRequest | undefined): string {
    const name = bridgeRequest?.name;
    if (
      !bridgeRequest ||
      (name !== 'llm_query' && name !== 'llm_query_batched' && name !== 'sub_rlm')
    ) {
      return call.id;
    }
    this.#callUsage.open(bridgeRequest.id, name === 'sub_rlm' ? 'sub_rlm' : 'llm_query', call.id);
    return bridgeRequest.id;
  }

  /**
   * A step's model call with the SUBMIT tool. When the provider rejects the tools, warns and
   * degrades the whole run to the text protocol (FINAL / FINAL_VAR), then asks again.
   */
  async #generateWithTools(
    call: CallState,
    toolChoice: GenerateRequest['toolChoice'],
  ): Promise<GenerateResult> {
    const request = await this.#request(call);
    if (!request.tools) return this.#generate(call, this.#settings.llm, request);
    try {
      return await this.#generate(call, this.#settings.llm, { ...request, toolChoice });
    } catch (error) {
      if (!isToolRejection(error)) throw error;
      this.#toolsDisabled = true;
      this.#emit(call, {
        type: 'warning',
        code: 'tools-unsupported',
        message: `The model rejected the SUBMIT tool (${errorMessage(error)}); continuing with FINAL(...) text answers.`,
      });
      return this.#generate(call, this.#settings.llm, await this.#request(call));
    }
  }

  #submitToolOffered(): boolean {
    return this.#settings.llm.supportsTools && !this.#toolsDisabled;
  }

  #submitTool(): ToolDefinition {
    this.#submitToolDefinition ??= buildSubmitTool(this.#settings.outputSchema?.schema);
    return this.#submitToolDefinition;
  }

  async #request(call: CallState): Promise<Omit<GenerateRequest, 'maxTokens'>> {
    const offered = this.#submitToolOffered();
    const artifacts = this.#resources.storage?.artifacts;
    const system =
      this.#settings.systemPrompt ??
      buildSystemPrompt({
        submitTool: offered,
        recursion: call.depth + 1 < this.#settings.maxDepth,
        codeLanguage: this.#settings.codeLanguages[0] ?? 'repl',
        artifacts: artifacts !== undefined,
        tools: this.#settings.tools.describe(),
        durableTools: this.#settings.toolStore !== undefined,
      });
    if (this.#settings.toolStore) {
      this.#knownTools ??= this.#settings.toolStore
        .knownTools()
        .then(renderKnownTools)
        .catch(() => '');
    }
    const knownTools = this.#knownTools ? await this.#knownTools : '';
    const catalog = artifacts
      ? `\n\nAvailable artifacts (load(name) in code, "@name" in tool inputs):\n${renderArtifactCatalog(await artifacts.catalog(), this.#settings.catalogChars)}`
      : '';
    return {
      system: system + (knownTools ? `\n\n${knownTools}` : '') + catalog,
      messages: boundHistory(call.messages, this.#settings.historyBudgetChars),
      ...(offered ? { tools: [this.#submitTool()], toolChoice: 'auto' as const } : {}),
    };
  }

  #generateStep(callId: string): void {
    const call = this.#liveCall(callId);
    if (!call) return;
    if (call.iteration >= this.#settings.maxIterations) {
      this.#extract(call);
      return;
    }
    call.iteration += 1;
    call.stepStartedAt = Date.now();
    call.pendingFinal = undefined;
    this.#emit(call, { type: 'step-start', iteration: call.iteration });
    this.#spawn(call, async () => {
      const response = await this.#generateWithTools(call, 'auto');
      return { type: 'ExecuteCode', callId: call.id, response };
    });
  }

  #executeCode(callId: string, response: GenerateResult): void {
    const call = this.#liveCall(callId);
    if (!call) return;
    if (response.text.trim().length > 0) {
      call.lastText = response.text;
      this.#emit(call, { type: 'text', iteration: call.iteration, text: response.text });
    }
    const empty = response.text.trim().length === 0 && response.toolCalls.length === 0;
    call.emptyStreak = empty ? call.emptyStreak + 1 : 0;
    if (call.emptyStreak >= this.#settings.stallLimit) {
      this.#emit(call, {
        type: 'warning',
        code: 'stall',
        message: `The model answered with nothing ${call.emptyStreak} times in a row; asking for a final answer now.`,
      });
      this.#extract(call);
      return;
    }
    const parsed = parseResponse(response.text, this.#settings.codeLanguages);
    const toolResults: ToolResultPart[] = [];
    for (const toolCall of response.toolCalls) {
      if (toolCall.name !== submitToolName) {
        toolResults.push(toolError(toolCall, `Unknown tool ${toolCall.name}: only SUBMIT exists.`));
        continue;
      }
      const submit = readSubmitCall(toolCall);
      if ('problem' in submit) {
        this.#emit(call, { type: 'warning', code: 'submit-unreadable', message: submit.problem });
        toolResults.push(toolError(toolCall, submit.problem));
        continue;
      }
      if (parsed.codeBlocks.length > 0) {
        this.#emit(call, {
          type: 'warning',
          code: 'submit-with-code',
          message: 'The response called SUBMIT and also wrote code: the code was not run.',
        });
      }
      this.#resolveFinal(call, pendingFromSubmit(submit, 'submit-tool'), response, [], toolCall);
      return;
    }
    const plan = planCodeBlocks(parsed.codeBlocks, {
      stopReason: response.stopReason,
      maxBlocks: this.#settings.maxCodeBlocksPerResponse,
    });
    const notes = buildResponseNotes(plan, this.#settings.maxCodeBlocksPerResponse);
    if (plan.cutOff) {
      this.#emit(call, {
        type: 'warning',
        code: 'response-cut',
        message: plan.unfinishedDropped
          ? 'The response reached max_tokens inside a code block: that block was not run; the model is told to continue.'
          : 'The response reached max_tokens; the model is told to continue.',
      });
    }
    if (plan.notRun > 0) {
      this.#emit(call, {
        type: 'warning',
        code: 'code-blocks-not-run',
        message: `The response had ${plan.run.length + plan.notRun} code blocks: only the first ${plan.run.length} ran.`,
      });
    }
    this.#spawn(call, async () => {
      // The checkpoint of the step before ran during the model call; its snapshot must be taken.
      if (call.parentId === undefined) await this.#checkpointer?.snapshotTaken();
      const restoreNote = call.parentId ? undefined : this.#checkpointer?.takeRestoreNote();
      const outputs: string[] = [];
      for (const [index, block] of plan.run.entries()) {
        if (call.done || call.pendingFinal) break;
        this.#emit(call, { type: 'code', iteration: call.iteration, index, code: block.code });
        const result = await call.sandbox!.execute(block.code, {
          timeoutMs: this.#settings.execTimeoutMs,
          signal: call.abort.signal,
        });
        this.#enqueue({ type: 'BlockEnded', callId: call.id });
        const output = this.#presentOutput(call, result.output, result.error);
        outputs.push(formatExecution(block.code, output, block.language));
        this.#emit(call, {
          type: 'execution',
          iteration: call.iteration,
          index,
          output,
          durationMs: result.durationMs,
          ...(result.error === undefined ? {} : { error: result.error }),
        });
      }
      const allNotes = restoreNote === undefined ? notes : [...notes, restoreNote];
      return {
        type: 'CodeExecuted',
        callId: call.id,
        response,
        outputs,
        toolResults,
        notes: allNotes,
      };
    });
  }

  /** What the model sees of one execution: redacted, truncated, the error after the output. */
  #presentOutput(call: CallState, rawOutput: string, error: string | undefined): string {
    const output = rawOutput.endsWith('\n') ? rawOutput.slice(0, -1) : rawOutput;
    const shown = truncateOutput(
      redactLargeOutput(output, {
        contextLength: call.contextLength,
        ratio: this.#settings.redactionRatio,
        minChars: this.#settings.redactionMinChars,
      }),
      this.#settings.maxOutputChars,
    );
    if (error === undefined) return shown;
    const errorText = truncateOutput(
      /^\w*Error\b/.test(error) ? error : `Error: ${error}`,
      this.#settings.maxOutputChars,
    );
    return shown.length > 0 ? `${shown}\n${errorText}` : errorText;
  }

  #codeExecuted(command: Extract<Command, { type: 'CodeExecuted' }>): void {
    const call = this.#liveCall(command.callId);
    if (!call) return;
    const { response, outputs, toolResults, notes } = command;
    const pending = call.pendingFinal ?? this.#proseFinal(response.text);
    if (pending) {
      this.#resolveFinal(call, pending, response, outputs, undefined, toolResults);
      return;
    }
    this.#recordStep(call, response, outputs, toolResults, notes.join('\n\n') || undefined);
    this.#emit(call, {
      type: 'step-complete',
      iteration: call.iteration,
      durationMs: Date.now() - call.stepStartedAt,
    });
    if (outputs.length === 0) {
      this.#enqueue({ type: 'GenerateStep', callId: call.id });
      return;
    }
    this.#spawn(call, async () => {
      await this.#syncVariables(call, 'code-executed');
      this.#checkpoint(call);
      return { type: 'GenerateStep', callId: call.id };
    });
  }

  #proseFinal(text: string): PendingFinal | undefined {
    const marker = findFinalAnswer(parseResponse(text, this.#settings.codeLanguages).prose);
    if (!marker) return undefined;
    return marker.kind === 'final'
      ? { kind: 'value', value: marker.answer, source: 'final-text' }
      : { kind: 'variable', variable: marker.variable, source: 'final-var' };
  }

  /** Appends one step (the response, its outputs and tool results) to the conversation. */
  #recordStep(
    call: CallState,
    response: GenerateResult,
    outputs: readonly string[],
    toolResults: readonly ToolResultPart[],
    note?: string,
  ): void {
    const assistantParts = [
      ...(response.text.trim().length > 0
        ? [
            {
              type: 'text' as const,
              text: truncateOutput(response.text, this.#settings.maxResponseChars, 'response'),
            },
          ]
        : []),
      ...response.toolCalls.map((toolCall) => ({ type: 'tool-call' as const, call: toolCall })),
    ];
    if (assistantParts.length === 0) {
      this.#emit(call, {
        type: 'warning',
        code: 'empty-response',
        message: 'The model answered with nothing.',
      });
    } else {
      appendMessage(call.messages, { role: 'assistant', content: assistantParts });
    }
    const feedback = [...outputs];
    if (note) feedback.push(note);
    if (outputs.length === 0 && !note) {
      feedback.push(buildContinueMessage(this.#submitToolOffered()));
    }
    appendMessage(call.messages, {
      role: 'user',
      content: [...toolResults, { type: 'text', text: feedback.join('\n\n') }],
    });
  }

  /**
   * Turns a pending final into an answer: values directly, variables by reading the sandbox;
   * with an output schema, the answer must match it. An answer that cannot be read or does not
   * match goes back to the model (as the SUBMIT call's error result, or as a note) and the
   * loop goes on.
   */
  #resolveFinal(
    call: CallState,
    final: PendingFinal,
    response: GenerateResult,
    outputs: readonly string[],
    submitCall?: ToolCall,
    toolResults: readonly ToolResultPart[] = [],
  ): void {
    this.#spawn(call, async () => {
      const accepted = await this.#readAnswer(call, final);
      if ('answer' in accepted) return this.#finalCommand(call, accepted.answer, final.source);
      this.#emit(call, { type: 'warning', code: 'answer-rejected', message: accepted.problem });
      const results = submitCall
        ? [...toolResults, toolError(submitCall, accepted.problem)]
        : toolResults;
      this.#recordStep(call, response, outputs, results, submitCall ? undefined : accepted.problem);
      call.pendingFinal = undefined;
      return { type: 'GenerateStep', callId: call.id };
    });
  }

  /** Reads and checks a final answer; says what is wrong when it cannot be accepted. */
  async #readAnswer(
    call: CallState,
    final: PendingFinal,
  ): Promise<{ answer: unknown } | { problem: string }> {
    let answer: unknown;
    if (final.kind === 'value') answer = final.value;
    else {
      try {
        if (call.parentId === undefined) await this.#checkpointer?.snapshotTaken();
        answer = await call.variables!.read(final.variable);
      } catch (error) {
        return {
          problem: `Could not return variable ${JSON.stringify(final.variable)}: ${errorMessage(error)}. Define it first, or answer directly.`,
        };
      }
    }
    return checkAnswer(this.#settings.outputSchema, answer, final.source);
  }

  /** Out of iterations (or stalled): one forced final prompt, then a typed error. */
  #extract(call: CallState): void {
    this.#spawn(call, async () => {
      await this.#syncVariables(call, 'extract');
      const offered = this.#submitToolOffered();
      appendMessage(call.messages, {
        role: 'user',
        content: buildExtractMessage(offered, formatVariables(call.variables!.cached)),
      });
      const response = await this.#generateWithTools(call, { tool: submitToolName });
      if (response.text.trim().length > 0) call.lastText = response.text;
      const submit = response.toolCalls.find((toolCall) => toolCall.name === submitToolName);
      const read = submit ? readSubmitCall(submit) : undefined;
      const final =
        read && !('problem' in read)
          ? pendingFromSubmit(read, 'extract')
          : this.#proseFinal(response.text);
      if (!final) {
        throw this.#noFinalAnswer(call, 'the forced final prompt gave no answer');
      }
      const accepted = await this.#readAnswer(call, final);
      if ('problem' in accepted) throw this.#noFinalAnswer(call, accepted.problem);
      return this.#finalCommand(call, accepted.answer, 'extract');
    });
  }

  #noFinalAnswer(call: CallState, reason: string): NoFinalAnswerError {
    return new NoFinalAnswerError(
      `@rlm/core: no final answer after ${call.iteration} iterations: ${reason}; raise maxIterations or check the model's output`,
      {
        diagnostics: {
          iterations: call.iteration,
          depth: call.depth,
          lastResponse: call.lastText.slice(0, 2_000),
          reason,
        },
        ...(call.lastText ? { partialAnswer: call.lastText } : {}),
      },
    );
  }

  #finalize(command: Extract<Command, { type: 'Finalize' }>): void {
    const call = this.#liveCall(command.callId);
    if (!call) return;
    const { answer, source, artifact } = command;
    this.#emit(call, {
      type: 'final',
      answer,
      iterations: call.iteration,
      source,
      usage: this.#resources.budget.usage,
      ...(call.parentId === undefined ? { callUsage: this.#callUsage.entries } : {}),
      depthReached: this.#depthReached,
      durationMs: Date.now() - this.#resources.startedAt,
      ...(artifact ? { artifact } : {}),
    });
    this.#release(call, new Error('the query finished'));
    // The run is complete: the answer does not wait for a checkpoint nobody needs.
    if (call.parentId === undefined) this.#checkpointer?.supersede();
    call.settlement.resolve({
      answer,
      source,
      iterations: call.iteration,
      ...(artifact ? { artifact } : {}),
    });
  }

  /**
   * Settles a call: the root once the checkpoint in flight, if any, is saved (so the store is
   * not closed under it); a child at once.
   */
  #afterCheckpoints(call: CallState, settle: () => void): void {
    if (call.parentId !== undefined || this.#checkpointer === undefined) {
      settle();
      return;
    }
    this.#checkpointer.close();
    void this.#checkpointer.saved().then(settle);
  }

  /**
   * The Finalize command for an accepted answer. A large root answer is also stored as a blob,
   * so it survives the process and can be fetched by id.
   */
  async #finalCommand(call: CallState, answer: unknown, source: FinalSource): Promise<Command> {
    const storage = this.#resources.storage;
    const text = typeof answer === 'string' ? answer : undefined;
    let artifact: ArtifactRef | undefined;
    if (storage && call.parentId === undefined) {
      const content = text ?? jsonTextOrEmpty(answer);
      if (content.length > this.#settings.largeAnswerChars) {
        artifact = await storage.artifacts.store(content);
      }
    }
    return { type: 'Finalize', callId: call.id, answer, source, ...(artifact ? { artifact } : {}) };
  }

  #failCall(callId: string, error: unknown): void {
    const call = this.#liveCall(callId);
    if (!call) return;
    const final = withPartialAnswer(error, call.lastText);
    this.#emit(call, {
      type: 'call-error',
      message: errorMessage(final),
      errorName: final instanceof Error ? final.name : 'Error',
      ...(call.parentId === undefined ? { callUsage: this.#callUsage.entries } : {}),
    });
    this.#release(call, final);
    this.#afterCheckpoints(call, () => call.settlement.reject(final));
  }

  /**
   * Releases everything a call holds: its model requests and running code (abort), its
   * children (failed), its pending bridge requests (rejected) and its own sandbox (disposed).
   */
  #release(call: CallState, reason: unknown): void {
    call.done = true;
    call.abort.abort(reason);
    for (const childId of call.children) {
      this.#failCall(childId, new AbortedError('@rlm/core: the parent query ended'));
    }
    for (const requestId of [...call.bridgeRequests]) {
      this.#refuseBridge(requestId, 'the calling query has ended');
    }
    if (call.parentId) this.#calls.get(call.parentId)?.children.delete(call.id);
    this.#calls.delete(call.id);
    this.#hostVariables.delete(call.id);
    if (call.ownsSandbox && call.sandbox) {
      const sandbox = call.sandbox;
      // The root's last checkpoint snapshot, if one is being taken, finishes first.
      const snapshot =
        call.parentId === undefined ? this.#checkpointer?.snapshotTaken() : undefined;
      (snapshot ?? Promise.resolve())
        .then(() => sandbox.dispose())
        .catch(() => {})
        .finally(() => this.#releaseChildSlot(call.id));
    } else if (call.sandbox) {
      this.#releaseChildSlot(call.id);
    }
  }
}

function pendingFromSubmit(submit: SubmitRequest, source: FinalSource): PendingFinal {
  return submit.kind === 'answer'
    ? { kind: 'value', value: submit.answer, source }
    : { kind: 'variable', variable: submit.variable, source };
}

/** Whether the adapter classified a model error as the provider refusing our tools. */
function isToolRejection(error: unknown): boolean {
  return ModelCallError.isInstance(error) && error.reason === 'tools-unsupported';
}

/** `Omit` that distributes over a union. */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

function toolError(toolCall: ToolCall, content: string): ToolResultPart {
  return { type: 'tool-result', toolCallId: toolCall.id, content, isError: true };
}

/** The prompt of a `sub_rlm` at the last depth: the query, then the context as text. */
function plainSubQueryPrompt(query: string, context: unknown): string {
  if (context === undefined || context === null) return query;
  const text =
    typeof context === 'string' ? context : toJsonText(context, 'sub_rlm(query, context)');
  return `${query}\n\nContext:\n${text}`;
}

/** Limits of walking a final answer: the schema check and the JSON text of a stored answer. */
const answerLimits = { maxNodes: 1_000_000, maxChars: 512 * 1024 * 1024, maxDepth: 1_000 };

/** The JSON text of an answer, or `''` when it has none (a bigint, a cycle, too large). */
function jsonTextOrEmpty(answer: unknown): string {
  if (!measurePlainData(answer, answerLimits).ok) return '';
  try {
    return JSON.stringify(answer) ?? '';
  } catch {
    return '';
  }
}

function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === 'string' ? error : 'unknown error';
}

/** Attaches the call's last text as the partial answer of a budget error that lacks one. */
function withPartialAnswer(error: unknown, lastText: string): unknown {
  if (!BudgetExhaustedError.isInstance(error) || error.partialAnswer || !lastText) return error;
  return new BudgetExhaustedError(error.message, {
    budget: error.budget,
    partialAnswer: lastText,
    cause: error.cause,
  });
}
