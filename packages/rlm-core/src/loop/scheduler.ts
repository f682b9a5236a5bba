import { AbortedError } from '../errors/aborted-error.js';
import type { RlmEvent } from '../events.js';
import type { CallEvent } from './call-event.js';
import type { LanguageModel } from '../language-model.js';
import {
  type CallResult,
  type CallState,
  createCallState,
  isRunning,
  type RunningCall,
} from './call-state.js';
import type { CallSetup, Command, StepCommand } from './commands.js';
import { errorMessage } from '../error-message.js';
import { withPartialAnswer } from './final-answer.js';

export type { CallEvent, DistributiveOmit } from './call-event.js';

/** What the kernel asks of the rest of the loop. None of these may change a call's state. */
export interface KernelHooks {
  /** A call was registered (its usage entry opens). */
  readonly started: (call: CallState) => void;
  /**
   * Spawned work: makes the call's sandbox ready and returns `WorkspaceReady`, or `undefined`
   * when the call ended meanwhile (nothing left to release).
   */
  readonly openWorkspace: (call: CallState, setup: CallSetup) => Promise<Command | undefined>;
  /** Handles every command that is not lifecycle (see {@link StepCommand}), for a live call. */
  readonly handle: (command: StepCommand, call: CallState) => void;
  /** A command came for a call that has ended: release what it carries (a host call). */
  readonly dropped: (command: StepCommand) => void;
  /** Fields of the `final` and `call-error` events that describe the run. */
  readonly summary: (
    call: CallState,
  ) => Omit<
    Extract<RlmEvent, { type: 'final' }>,
    'type' | 'answer' | 'iterations' | 'source' | 'artifact' | 'callId' | 'depth' | 'at'
  >;
  /** The call has ended: its host calls are refused and its sandbox given back. */
  readonly released: (call: CallState) => void;
  /** Work that must finish before the call's promise settles, if any (a checkpoint save). */
  readonly beforeSettle: (
    call: CallState,
    outcome: 'answered' | 'failed',
  ) => Promise<void> | undefined;
}

/**
 * The loop's kernel: one serialized consumer of a command queue, the table of live calls and
 * their lifecycle (start, finalize, fail, release). Nothing else: what a step does is the
 * handlers' (`steps.ts`), host functions are the bridge's and the features'.
 *
 * Every state change happens in a handler, one at a time. Slow work runs through
 * {@link Scheduler.spawn} and re-enters as the command it returns; its failure fails its call.
 * A handler's throw fails the call its command names, so no command is lost.
 */
export class Scheduler {
  readonly #hooks: KernelHooks;
  readonly #emitEvent: (event: RlmEvent) => void;
  readonly #queue: Command[] = [];
  readonly #calls = new Map<string, CallState>();
  #draining = false;
  #nextId = 0;
  #depthReached = 0;

  constructor(hooks: KernelHooks, emit: (event: RlmEvent) => void) {
    this.#hooks = hooks;
    this.#emitEvent = emit;
  }

  /** Deepest call depth started so far. */
  get depthReached(): number {
    return this.#depthReached;
  }

  /** Calls still open: 0 once a run has ended. */
  get openCalls(): number {
    return this.#calls.size;
  }

  /** The root call now running, if any. */
  get rootCallId(): string | undefined {
    for (const call of this.#calls.values()) if (call.parentId === undefined) return call.id;
    return undefined;
  }

  /**
   * Starts a call; resolves with its answer, rejects with its error. `signal` aborts it (and
   * with it its children).
   */
  startCall(
    init: {
      readonly query: string;
      readonly context: unknown;
      readonly parentId?: string;
      readonly setup: CallSetup;
      /** The model of the call's steps. */
      readonly llm: LanguageModel;
    },
    signal: AbortSignal | undefined,
    abortError: (reason: unknown) => unknown,
  ): Promise<CallResult> {
    return new Promise((resolve, reject) => {
      const parent = init.parentId === undefined ? undefined : this.#calls.get(init.parentId);
      this.#nextId += 1;
      const call = createCallState({
        id: `call-${this.#nextId}`,
        depth: parent ? parent.depth + 1 : 0,
        query: init.query,
        context: init.context,
        parentId: init.parentId,
        hostVariables: init.setup.hostVariables,
        llm: init.llm,
        settlement: { resolve, reject },
      });
      this.enqueue({ type: 'StartCall', callId: call.id, call, setup: init.setup });
      if (!signal) return;
      const onAbort = () =>
        this.enqueue({ type: 'FailCall', callId: call.id, error: abortError(signal.reason) });
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
    const rootId = this.rootCallId;
    if (rootId !== undefined) this.enqueue({ type: 'FailCall', callId: rootId, error });
  }

  /** Queues a command; drains the queue unless a handler is already running. */
  enqueue(command: Command): void {
    this.#queue.push(command);
    if (this.#draining) return;
    this.#draining = true;
    try {
      for (let next = this.#queue.shift(); next; next = this.#queue.shift()) {
        try {
          this.#handle(next);
        } catch (error) {
          // A handler's throw fails the call the command names: it is never lost.
          this.#queue.push({ type: 'FailCall', callId: next.callId, error });
        }
      }
    } finally {
      this.#draining = false;
    }
  }

  /** Runs `work` outside the queue; its command re-enters the queue, its failure fails `callId`. */
  spawn(callId: string, work: () => Promise<Command | undefined>): void {
    work().then(
      (command) => {
        if (command) this.enqueue(command);
      },
      (error: unknown) => this.enqueue({ type: 'FailCall', callId, error }),
    );
  }

  /** The call, while it has not ended. */
  liveCall(callId: string): CallState | undefined {
    const call = this.#calls.get(callId);
    return call && !call.done ? call : undefined;
  }

  /** The call, until it has been released (even once it has ended). */
  knownCall(callId: string): CallState | undefined {
    return this.#calls.get(callId);
  }

  /** The call, while it has not ended and once its sandbox is ready. */
  runningCall(callId: string): RunningCall | undefined {
    const call = this.liveCall(callId);
    return call && isRunning(call) ? call : undefined;
  }

  /** Publishes an event of `call`; telemetry is best-effort and never breaks the loop. */
  emit(call: CallState, event: CallEvent): void {
    try {
      this.#emitEvent({ ...event, callId: call.id, depth: call.depth, at: Date.now() } as RlmEvent);
    } catch {
      // A failing consumer never breaks the loop.
    }
  }

  #handle(command: Command): void {
    switch (command.type) {
      case 'StartCall':
        this.#start(command.call, command.setup);
        return;
      case 'WorkspaceReady': {
        const call = this.liveCall(command.callId);
        if (!call) {
          // The call ended while its sandbox was being made: give the sandbox back.
          const { workspace } = command;
          const disposed = workspace.ownsSandbox ? workspace.sandbox.dispose() : Promise.resolve();
          void disposed.catch(() => {}).finally(workspace.releaseSlot);
          return;
        }
        call.workspace = command.workspace;
        this.#hooks.handle(command, call);
        return;
      }
      case 'Finalize':
        this.#finalize(command);
        return;
      case 'FailCall':
        this.#fail(command.callId, command.error);
        return;
      default: {
        const call = this.liveCall(command.callId);
        if (call) this.#hooks.handle(command, call);
        else this.#hooks.dropped(command);
      }
    }
  }

  #start(call: CallState, setup: CallSetup): void {
    this.#calls.set(call.id, call);
    this.#depthReached = Math.max(this.#depthReached, call.depth);
    const parent = call.parentId === undefined ? undefined : this.#calls.get(call.parentId);
    parent?.children.add(call.id);
    this.#hooks.started(call);
    this.emit(call, {
      type: 'call-start',
      query: call.query,
      ...(call.parentId ? { parentCallId: call.parentId } : {}),
    });
    this.spawn(call.id, () => this.#hooks.openWorkspace(call, setup));
  }

  #finalize(command: Extract<Command, { type: 'Finalize' }>): void {
    const call = this.liveCall(command.callId);
    if (!call) return;
    const { answer, source, artifact } = command;
    this.emit(call, {
      type: 'final',
      answer,
      iterations: call.iteration,
      source,
      ...this.#hooks.summary(call),
      ...(artifact ? { artifact } : {}),
    });
    this.#release(call, new Error('the query finished'));
    this.#settle(call, 'answered', () =>
      call.settlement.resolve({
        answer,
        source,
        iterations: call.iteration,
        ...(artifact ? { artifact } : {}),
      }),
    );
  }

  #fail(callId: string, error: unknown): void {
    const call = this.liveCall(callId);
    if (!call) return;
    const final = withPartialAnswer(error, call.lastText);
    const { callUsage } = this.#hooks.summary(call);
    this.emit(call, {
      type: 'call-error',
      message: errorMessage(final),
      errorName: final instanceof Error ? final.name : 'Error',
      ...(callUsage ? { callUsage } : {}),
    });
    this.#release(call, final);
    this.#settle(call, 'failed', () => call.settlement.reject(final));
  }

  #settle(call: CallState, outcome: 'answered' | 'failed', settle: () => void): void {
    const pending = this.#hooks.beforeSettle(call, outcome);
    if (pending) void pending.then(settle);
    else settle();
  }

  /**
   * Releases everything a call holds: its model requests and running code (abort), its
   * children (failed), then the rest through the `released` hook (host calls, sandbox).
   */
  #release(call: CallState, reason: unknown): void {
    call.done = true;
    call.abort.abort(reason);
    for (const childId of call.children) {
      this.#fail(childId, new AbortedError('@rlm/core: the parent query ended'));
    }
    this.#hooks.released(call);
    if (call.parentId) this.#calls.get(call.parentId)?.children.delete(call.id);
    this.#calls.delete(call.id);
  }
}
