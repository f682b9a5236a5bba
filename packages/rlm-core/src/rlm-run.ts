import { type BridgeOutcome, type BridgeRequest, BridgeRouter } from './bridge/bridge-router.js';
import { ConcurrencyGate } from './concurrency-gate.js';
import { type CallUsage, CallUsageLedger } from './cost/call-usage-ledger.js';
import { AbortedError } from './errors/aborted-error.js';
import { argumentsExcerpt, eventExcerpt } from './event-excerpt.js';
import type { Feature } from './features/feature.js';
import type { HostCall, HostCallHandler } from './loop/host-call.js';
import { FeatureSet } from './features/feature-set.js';
import type { HostFunction, Sandbox } from './sandbox.js';
import type { CurrentQueryHistory } from './history-entry.js';
import { VariableSpace } from './variable-space.js';
import {
  type CallResult,
  type CallState,
  isRunning,
  type RunningCall,
  type Workspace,
} from './loop/call-state.js';
import type { CallSetup, Command, StepCommand } from './loop/commands.js';
import { coreFunctionNames, coreFunctions } from './loop/core-functions.js';
import { finalRecorderNames, readCodeFinal } from './loop/final-answer.js';
import { ModelGateway } from './loop/model-gateway.js';
import type { ResolvedSettings, RunResources } from './loop/resolved-settings.js';
import { type CallEvent, type KernelHooks, Scheduler } from './loop/scheduler.js';
import { StepHandlers } from './loop/steps.js';

/**
 * One top-level run and all of its `sub_rlm` children: the kernel (`scheduler.ts`) with what
 * it drives plugged in: the step handlers, the model gateway, the bridge with the core
 * functions and the installed features' host functions.
 */
export class RlmRun {
  readonly #settings: ResolvedSettings;
  readonly #resources: RunResources;
  readonly #kernel: Scheduler;
  readonly #bridge: BridgeRouter;
  readonly #gateway: ModelGateway;
  readonly #features: FeatureSet;
  readonly #steps: StepHandlers;
  readonly #core: Readonly<Record<string, HostCallHandler>>;
  readonly #ledger = new CallUsageLedger();
  /** Slots for child sandboxes: one is held from before a child's sandbox is made until it is disposed. */
  readonly #childSandboxSlots: ConcurrencyGate;
  #rootHostFunctions: Record<string, HostFunction> | undefined;

  /**
   * @param installFeatures the run's features, given the kernel's event sink.
   */
  constructor(
    settings: ResolvedSettings,
    resources: RunResources,
    installFeatures: (emit: (call: CallState, event: CallEvent) => void) => readonly Feature[],
  ) {
    this.#settings = settings;
    this.#resources = resources;
    this.#childSandboxSlots = new ConcurrencyGate(settings.maxConcurrentChildren);
    this.#kernel = new Scheduler(this.#hooks(), resources.emit);
    const emit = (call: CallState, event: CallEvent) => this.#kernel.emit(call, event);
    this.#bridge = new BridgeRouter(settings.commandQueue, {
      settled: (request, outcome) => this.#bridgeSettled(request, outcome),
      overloaded: (callId, backlog) => {
        const call = this.#kernel.liveCall(callId);
        if (!call) return;
        emit(call, {
          type: 'warning',
          code: 'queue-overload',
          message: `${backlog} host calls are pending (commandQueue.maxPending is ${settings.commandQueue.maxPending})`,
        });
      },
    });
    this.#gateway = new ModelGateway({
      llm: settings.llm,
      budget: resources.budget,
      gate: resources.gate,
      ledger: this.#ledger,
      maxResponseTokens: settings.maxResponseTokens,
      outputSchema: settings.outputSchema?.schema,
      emit,
    });
    this.#features = new FeatureSet(installFeatures(emit), coreFunctionNames);
    this.#core = coreFunctions({
      maxDepth: settings.maxDepth,
      plainModel: settings.subLlm,
      childModel: settings.llm,
      modelChoice: settings.modelChoice,
      plainCall: (call, model, prompt, request) =>
        this.#plainCall(
          call,
          model,
          'Answer the request accurately and concisely.',
          prompt,
          request,
        ),
      startChild: (parent, { query, context }, llm, signal) =>
        this.#kernel
          .startCall(
            {
              query,
              context,
              parentId: parent.id,
              llm,
              setup: {
                variables: { context },
                history: [],
                hostVariables: new Set(['context', 'history']),
                counts: { contexts: 1, histories: 0 },
              },
            },
            signal,
            () => new AbortedError('@rlm/core: the sub_rlm call that started it ended early'),
          )
          .then((result) => result.answer),
      admitBatch: (count, usage) => resources.budget.admitBatch(count, usage),
    });
    this.#steps = new StepHandlers(this.#kernel, settings, this.#gateway, this.#features);
  }

  /** Deepest call depth started so far. */
  get depthReached(): number {
    return this.#kernel.depthReached;
  }

  /** Usage per call of the tree so far, in start order (see {@link CallUsage}). */
  get callUsage(): CallUsage[] {
    return this.#ledger.entries;
  }

  /** Resolves once no checkpoint of the run is being written (after the answer, too). */
  checkpointsWritten(): Promise<void> {
    return this.#features.pendingWrites();
  }

  /** Calls and bridge requests still open: both 0 once a run has ended. */
  get openCounts(): { calls: number; bridgeRequests: number } {
    return { calls: this.#kernel.openCalls, bridgeRequests: this.#bridge.size };
  }

  /** Host functions model code can call, from the core and the installed features. */
  get hostFunctionNames(): string[] {
    return [...coreFunctionNames, ...this.#features.hostFunctionNames];
  }

  /** Host functions only guest helpers hold. */
  get internalHostFunctionNames(): string[] {
    return [...this.#features.internalHostFunctionNames];
  }

  /** Guest helpers of the installed features. */
  get guestHelpers(): Record<string, string> {
    return { ...this.#features.guestHelpers };
  }

  /** Starts the root call; resolves with its answer, rejects with its error. `signal` aborts the tree. */
  runRoot(
    query: string,
    context: unknown,
    setup: CallSetup,
    signal: AbortSignal | undefined,
  ): Promise<CallResult> {
    return this.#kernel.startCall(
      { query, context, setup, llm: this.#settings.llm },
      signal,
      (reason) => new AbortedError(undefined, { cause: reason }),
    );
  }

  /** Ends the root call with `error` (used for the wall-time budget). */
  failRoot(error: unknown): void {
    this.#kernel.failRoot(error);
  }

  /** Host functions bound to whichever root call is running: for a persistent sandbox. */
  get rootHostFunctions(): Record<string, HostFunction> {
    this.#rootHostFunctions ??= this.#hostFunctionsFor(
      () => this.#kernel.rootCallId,
      [...this.hostFunctionNames, ...this.internalHostFunctionNames],
    );
    return this.#rootHostFunctions;
  }

  #hooks(): KernelHooks {
    return {
      started: (call) =>
        this.#ledger.open(call.id, call.parentId ? 'sub_rlm' : 'root', call.parentId),
      openWorkspace: (call, setup) => this.#openWorkspace(call, setup),
      handle: (command, call) => this.#handle(command, call),
      dropped: (command) => {
        if (command.type === 'HandleBridgeCall') {
          this.#refuseBridge(command.requestId, 'the calling query has ended');
        }
      },
      summary: (call) => ({
        usage: this.#resources.budget.usage,
        ...(call.parentId === undefined ? { callUsage: this.#ledger.entries } : {}),
        depthReached: this.#kernel.depthReached,
        durationMs: Date.now() - this.#resources.startedAt,
      }),
      released: (call) => this.#released(call),
      beforeSettle: (call, outcome) => this.#features.beforeSettle(call, outcome),
    };
  }

  #handle(command: StepCommand, call: CallState): void {
    switch (command.type) {
      case 'HandleBridgeCall':
        this.#handleBridgeCall(call, command.requestId);
        return;
      case 'BridgeSettled':
        call.bridgeRequests.delete(command.requestId);
        return;
      case 'BlockEnded':
        // Host calls the block started and did not await are cancelled, so their model calls,
        // children and host work stop (the sandbox has already abandoned them).
        for (const requestId of [...call.bridgeRequests]) {
          const name = this.#bridge.get(requestId)?.name ?? 'the host call';
          this.#refuseBridge(
            requestId,
            `${name} was cancelled: the code block that started it ended first; await host calls inside the block`,
          );
        }
        return;
      default:
        this.#steps.handle(command, call);
    }
  }

  /**
   * Spawned work: the call's sandbox (its own, or the persistent root's), its first variables
   * and whatever a feature restores. `undefined` when the call ended meanwhile.
   */
  async #openWorkspace(call: CallState, setup: CallSetup): Promise<Command | undefined> {
    const workspace = setup.sandbox
      ? this.#workspaceOf(setup.sandbox, false, () => {})
      : await this.#createWorkspace(call);
    if (!workspace) return undefined;
    try {
      const history: CurrentQueryHistory = { query: call.query, steps: [] };
      await workspace.variables.injectAll(
        { ...setup.variables, history: [...setup.history, history] },
        true,
      );
      const resumed = await this.#features.beforeFirstStep(call, workspace, setup);
      return { type: 'WorkspaceReady', callId: call.id, workspace, setup, resumed };
    } catch (error) {
      if (workspace.ownsSandbox) await workspace.sandbox.dispose().catch(() => {});
      workspace.releaseSlot();
      throw error;
    }
  }

  #workspaceOf(sandbox: Sandbox, ownsSandbox: boolean, releaseSlot: () => void): Workspace {
    return {
      sandbox,
      variables: new VariableSpace(sandbox, this.#settings.variableSync),
      ownsSandbox,
      releaseSlot,
    };
  }

  /**
   * Creates a call's own sandbox. A child first waits for a slot (`maxConcurrentChildren`),
   * held until its sandbox is disposed. `undefined` when the call ended meanwhile.
   */
  async #createWorkspace(call: CallState): Promise<Workspace | undefined> {
    let releaseSlot = () => {};
    if (call.parentId !== undefined) {
      const release = await this.#childSandboxSlots.hold(call.abort.signal);
      let released = false;
      releaseSlot = () => {
        if (released) return;
        released = true;
        release();
      };
      if (call.done) {
        releaseSlot();
        return undefined;
      }
    }
    let sandbox: Sandbox;
    try {
      sandbox = await this.#settings.sandboxFactory({
        hostFunctions: this.#hostFunctionsFor(() => call.id, this.hostFunctionNames),
        endingFunctions: finalRecorderNames,
        internalHostFunctions: this.#hostFunctionsFor(
          () => call.id,
          this.internalHostFunctionNames,
        ),
        guestHelpers: this.guestHelpers,
        limits: { ...this.#settings.sandboxLimits, timeoutMs: this.#settings.execTimeoutMs },
      });
    } catch (error) {
      releaseSlot();
      throw error;
    }
    if (call.done) {
      await sandbox.dispose().catch(() => {});
      releaseSlot();
      return undefined;
    }
    return this.#workspaceOf(sandbox, true, releaseSlot);
  }

  /** Refuses the call's host calls and gives back its sandbox (after features are done with it). */
  #released(call: CallState): void {
    for (const requestId of [...call.bridgeRequests]) {
      this.#refuseBridge(requestId, 'the calling query has ended');
    }
    const workspace = call.workspace;
    if (!workspace) return;
    if (!workspace.ownsSandbox) {
      workspace.releaseSlot();
      return;
    }
    (this.#features.beforeDispose(call) ?? Promise.resolve())
      .then(() => workspace.sandbox.dispose())
      .catch(() => {})
      .finally(workspace.releaseSlot);
  }

  /**
   * The host functions model code can call. Bound to a call id rather than a call object, so a
   * persistent sandbox's functions always reach the call that is running now.
   */
  #hostFunctionsFor(
    resolveCallId: () => string | undefined,
    names: readonly string[],
  ): Record<string, HostFunction> {
    return Object.fromEntries(
      names.map((name) => {
        const recordsFinal = finalRecorderNames.includes(name);
        const hostFunction: HostFunction = (...args) => {
          const callId = resolveCallId();
          const call = callId ? this.#kernel.liveCall(callId) : undefined;
          if (!call) return Promise.reject(new Error(`${name}: no query is running`));
          // A recorded answer ended the block: code that runs on (past a catch) reaches nothing.
          if (call.pendingFinal) return Promise.reject(new Error(blockEndedMessage(name)));
          if (!recordsFinal) return this.#openBridgeRequest(call, name, args);
          // SUBMIT and FINAL_VAR only record the answer: it is read once the code has run. The
          // sandbox ends the block at the call, so a refusal reaches the model as a note.
          const final = readCodeFinal(name, args[0]);
          if ('problem' in final) {
            this.#kernel.enqueue({
              type: 'HostNote',
              callId: call.id,
              note: `Error: ${final.problem}. Nothing was submitted; the block ended at that call.`,
            });
            return Promise.reject(new Error(final.problem));
          }
          this.#kernel.enqueue({ type: 'RecordFinal', callId: call.id, final });
          return Promise.resolve(undefined);
        };
        return [name, hostFunction];
      }),
    );
  }

  /** Admits a host call from model code and queues its dispatch; settles exactly once. */
  #openBridgeRequest(call: CallState, name: string, args: readonly unknown[]): Promise<unknown> {
    const admission = this.#bridge.admit(call.id, name, args);
    if ('refusal' in admission) return Promise.reject(admission.refusal);
    const { request, result } = admission;
    this.#kernel.emit(call, {
      type: 'bridge-call',
      requestId: request.id,
      name,
      argumentsExcerpt: argumentsExcerpt(args),
    });
    this.#kernel.enqueue({ type: 'HandleBridgeCall', callId: call.id, requestId: request.id });
    return result;
  }

  #handleBridgeCall(call: CallState, requestId: string): void {
    const request = this.#bridge.get(requestId);
    if (!request) return;
    if (!isRunning(call)) {
      this.#refuseBridge(requestId, 'the calling query has not started yet');
      return;
    }
    call.bridgeRequests.add(requestId);
    const running = call;
    const core = this.#core[request.name];
    const feature = core ? undefined : this.#features.hostFunction(request.name);
    this.#bridge.dispatch(requestId, (bridgeRequest) => {
      if (core) return core(this.#hostCall(running, bridgeRequest));
      if (!feature) throw new Error(`unknown host function ${bridgeRequest.name}`);
      bridgeRequest.waiting = false;
      return feature(this.#hostCall(running, bridgeRequest));
    });
  }

  #hostCall(call: RunningCall, request: BridgeRequest): HostCall {
    return {
      call,
      request,
      generate: (system, prompt) =>
        this.#plainCall(call, this.#settings.llm, system, prompt, request),
      emit: (event) => this.#kernel.emit(call, event),
      note: (note) => this.#kernel.enqueue({ type: 'HostNote', callId: call.id, note }),
    };
  }

  /** One plain model call (no REPL) for a bridge request, through the shared gate and budget. */
  async #plainCall(
    call: CallState,
    model: ResolvedSettings['llm'],
    system: string,
    prompt: string,
    request: BridgeRequest,
  ): Promise<string> {
    const result = await this.#gateway.generate(
      call,
      model,
      { system, messages: [{ role: 'user', content: prompt }], singleUse: true },
      request,
    );
    return result.text;
  }

  /** Ends a request with an error model code sees. */
  #refuseBridge(requestId: string, message: string): void {
    this.#bridge.settle(requestId, { ok: false, error: new Error(message) });
  }

  /** Publishes a settled request; its call forgets it. */
  #bridgeSettled(request: BridgeRequest, outcome: BridgeOutcome): void {
    const call = this.#kernel.knownCall(request.callId);
    if (!call) return;
    this.#kernel.emit(call, {
      type: 'bridge-result',
      requestId: request.id,
      name: request.name,
      ok: outcome.ok,
      durationMs: Date.now() - request.startedAt,
      ...(outcome.ok
        ? { resultExcerpt: eventExcerpt(outcome.value) }
        : { error: outcome.error.message }),
    });
    this.#kernel.enqueue({ type: 'BridgeSettled', callId: call.id, requestId: request.id });
  }
}

/** What model code sees of a host call made after SUBMIT / FINAL_VAR ended its block. */
function blockEndedMessage(name: string): string {
  return `${name} was not called: SUBMIT or FINAL_VAR already ended this code block`;
}
