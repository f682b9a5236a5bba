import type { Worker } from 'node:worker_threads';
import {
  defaultSandboxLimits,
  type ExecuteOptions,
  type ExecuteResult,
  type HostFunction,
  isolatedEvaluatorName,
  type Sandbox,
  SandboxError,
  type SandboxLimits,
  type SandboxOptions,
  type SetVariablesOptions,
  type VariableInfo,
} from '@rlm/core';
import {
  ExecutionClock,
  OutputBuffer,
  type WorkerPool,
  watchExecutionTime,
} from '@rlm/core/sandbox-support';
import { decodeGraph, type EncodedGraph } from './decode-graph.js';
import { encodeGraph } from './encode-graph.js';
import type {
  HostMessage,
  HostResult,
  RestoreRecord,
  SnapshotEntry,
  WorkerMessage,
  WorkerSetup,
  WorkerSetupMessage,
} from './worker-protocol.js';

/**
 * How long code asked to stop (a timeout, an abort) has to end before its worker is
 * terminated, in milliseconds. Code stops at once unless it is inside one native built-in
 * (`indexOf`, `JSON.stringify`, `replaceAll` of large values), where QuickJS does not look at
 * its interrupt handler.
 */
const stopGraceMs = 250;
/** A request waits at least this long before a silent worker counts as held. */
const minRequestWaitMs = 1_000;
/** The time copies for a restart take after an execution: half its timeout, within these. */
const minSnapshotMs = 100;
const maxSnapshotMs = 1_000;
/** Node fires longer timers at once. */
const maxTimerDelayMs = 2 ** 31 - 1;

/** Settings of {@link QuickJsSandbox} besides the `SandboxOptions` of each sandbox. */
export interface QuickJsSandboxConfig {
  /** Starts the workers (and keeps a spare); shared by the sandboxes of one factory. */
  readonly pool: WorkerPool;
  /** Characters of model variables copied to the host after each execution, at most. */
  readonly snapshotLimitChars: number;
}

/** A running worker and what the host knows of it. */
interface WorkerState {
  readonly worker: Worker;
  /** Its executions' output, shared memory of this worker alone. */
  readonly output: OutputBuffer;
  /** The id of the execution the host wants stopped, read by the worker's interrupt handler. */
  readonly control: Int32Array;
  /** Resolves with the variables the worker could not restore, once it is ready. */
  readonly ready: Promise<string[]>;
  markReady(unrestored: string[]): void;
  failStart(error: Error): void;
  /** What the worker said of its engine's failure, before it exited. */
  fault?: { readonly reason: string; readonly outOfMemory: boolean };
}

/** How an execution ended, seen from the host. */
type Outcome =
  | { readonly kind: 'ended'; readonly error: string | undefined }
  /** Stopped by a timeout or an abort; `restart`: its worker had to be terminated. */
  | { readonly kind: 'stopped'; readonly reason: string; readonly restart: boolean }
  | { readonly kind: 'fault'; readonly reason: string }
  | { readonly kind: 'disposed' };

/** The execution the worker runs now. */
interface RunningExecution {
  readonly id: number;
  readonly clock: ExecutionClock;
  /** Why the host asked it to stop, once it did. */
  stopReason: string | undefined;
  /** The code has ended (`ended`); resolves the execution once its snapshot came. */
  finish(outcome: Outcome): void;
  /** Resolves once the worker sent the execution's snapshot (or cannot any more). */
  snapshotTaken(): void;
}

interface PendingRequest {
  resolve(message: WorkerMessage): void;
  reject(error: Error): void;
  /** Restarts a worker that leaves the request unanswered. */
  readonly watchdog: ReturnType<typeof setTimeout>;
}

/** A request to the worker that `#request` answers. */
type RequestMessage =
  | { readonly type: 'list' }
  | { readonly type: 'get'; readonly name: string }
  | { readonly type: 'set'; readonly variables: readonly RestoreRecord[] };

/** Requests failed because their worker was replaced: sent once more, to the new worker. */
const replacedWorkerErrors = new WeakSet<Error>();

function describe(error: unknown): string {
  try {
    if (typeof error === 'object' && error !== null && 'message' in error) {
      return String((error as { message: unknown }).message);
    }
    return String(error);
  } catch {
    return 'unknown error';
  }
}

function disposedError(): SandboxError {
  return new SandboxError('@rlm/sandbox-quickjs: the sandbox is disposed; create a new one');
}

/** Output as model code printed it, without the line break that ends every `print`. */
function withoutFinalNewline(output: string): string {
  return output.endsWith('\n') ? output.slice(0, -1) : output;
}

/** An execution's error, cut to `maxChars` like its output. */
function boundError(error: string | undefined, maxChars: number): string | undefined {
  if (error === undefined || error.length <= maxChars) return error;
  return `${error.slice(0, maxChars)}\n[… ${error.length - maxChars} more characters of the error dropped]`;
}

/**
 * A {@link Sandbox} that runs model code in QuickJS (WebAssembly) inside a `worker_thread`.
 * Create it with `createQuickJsSandbox()`; see the package README for the guarantees.
 */
export class QuickJsSandbox implements Sandbox {
  readonly #hostFunctions: Readonly<Record<string, HostFunction>>;
  /** Host functions whose call ends the execution (see `SandboxOptions.endingFunctions`). */
  readonly #endingFunctionNames: readonly string[];
  readonly #internalHostFunctions: Readonly<Record<string, HostFunction>>;
  readonly #guestHelpers: Readonly<Record<string, string>>;
  readonly #limits: SandboxLimits;
  readonly #config: QuickJsSandboxConfig;
  /** Variables set by the host, encoded: restored into every new worker. */
  readonly #hostVariables = new Map<string, RestoreRecord>();
  /** Copies of model variables as of the last execution, restored into a new worker. */
  readonly #snapshot = new Map<string, string>();
  /** Model variables after the last execution, to tell which a restart loses. */
  #modelVariables: readonly string[] = [];
  readonly #requests = new Map<number, PendingRequest>();
  readonly #stopping = new Set<Promise<number>>();
  #current: WorkerState | undefined;
  #execution: RunningExecution | undefined;
  /** Results of host calls settled in this turn, sent together. */
  #results: HostResult[] = [];
  #queue: Promise<unknown> = Promise.resolve();
  #nextId = 1;
  #busy = 0;
  #disposal: Promise<void> | undefined;

  private constructor(options: SandboxOptions, config: QuickJsSandboxConfig) {
    this.#hostFunctions = { ...options.hostFunctions };
    this.#endingFunctionNames = (options.endingFunctions ?? []).filter((name) =>
      Object.hasOwn(options.hostFunctions, name),
    );
    this.#internalHostFunctions = { ...options.internalHostFunctions };
    this.#guestHelpers = { ...options.guestHelpers };
    this.#limits = { ...defaultSandboxLimits, ...options.limits };
    this.#config = config;
  }

  /** Starts a sandbox; resolves once its worker is ready. */
  static async create(
    options: SandboxOptions,
    config: QuickJsSandboxConfig,
  ): Promise<QuickJsSandbox> {
    const sandbox = new QuickJsSandbox(options, config);
    config.pool.open();
    try {
      await sandbox.#hold(sandbox.#ensureWorker().ready);
    } catch (error) {
      await sandbox.dispose();
      throw error;
    }
    return sandbox;
  }

  execute(code: string, options: ExecuteOptions = {}): Promise<ExecuteResult> {
    if (this.#disposal) return Promise.reject(disposedError());
    const run = this.#queue.then(() => this.#hold(this.#run(code, options)));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async listVariables(): Promise<VariableInfo[]> {
    const answer = await this.#request({ type: 'list' });
    if (answer.type !== 'listing') throw new SandboxError('@rlm/sandbox-quickjs: no listing came');
    return [...answer.variables];
  }

  async getVariable(name: string): Promise<unknown> {
    const answer = await this.#request({ type: 'get', name });
    if (answer.type !== 'reply' || !answer.ok || answer.text === undefined) {
      throw new SandboxError(`@rlm/sandbox-quickjs: no variable named ${name}`);
    }
    return decodeGraph(JSON.parse(answer.text) as EncodedGraph);
  }

  async setVariables(
    values: Readonly<Record<string, unknown>>,
    options: SetVariablesOptions = {},
  ): Promise<void> {
    const readOnly = options.readOnly ?? false;
    const records: RestoreRecord[] = [];
    for (const [name, value] of Object.entries(values)) {
      if (typeof value === 'string') {
        records.push({ name, string: value, owner: 'host', readOnly });
        continue;
      }
      try {
        records.push({ name, text: encodeGraph(value), owner: 'host', readOnly });
      } catch (error) {
        throw new SandboxError(
          `@rlm/sandbox-quickjs: variables must be plain data (${name}: ${describe(error)})`,
          { cause: error },
        );
      }
    }
    await this.#request({ type: 'set', variables: records });
    for (const record of records) {
      this.#hostVariables.set(record.name, record);
      this.#snapshot.delete(record.name);
    }
  }

  dispose(): Promise<void> {
    this.#disposal ??= this.#shutDown();
    return this.#disposal;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }

  // ---- execution ----

  async #run(code: string, options: ExecuteOptions): Promise<ExecuteResult> {
    const started = performance.now();
    const durationMs = () => Math.round(performance.now() - started);
    const { signal } = options;
    if (signal?.aborted) {
      return { output: '', error: 'Execution aborted before it started.', durationMs: 0 };
    }
    const state = this.#ensureWorker();
    await state.ready;
    if (this.#disposal) throw disposedError();
    const timeoutMs = Math.max(0, options.timeoutMs ?? this.#limits.timeoutMs);
    const id = this.#nextId++;
    const cleanups: (() => void)[] = [];
    let snapshotTaken!: () => void;
    const snapshot = new Promise<void>((resolve) => {
      snapshotTaken = resolve;
    });
    const outcome = await new Promise<Outcome>((finish) => {
      const { performance: workerPerformance } = state.worker;
      const clock = new ExecutionClock(
        () => performance.now(),
        () => workerPerformance.eventLoopUtilization().active,
      );
      const execution: RunningExecution = {
        id,
        clock,
        stopReason: undefined,
        finish,
        snapshotTaken,
      };
      this.#execution = execution;
      const stop = (reason: string) => this.#stop(state, execution, reason);
      cleanups.push(
        watchExecutionTime(clock, { timeoutMs, hostWaitMs: this.#limits.hostWaitMs }, stop),
      );
      if (signal) {
        const onAbort = () => stop('Execution aborted');
        signal.addEventListener('abort', onAbort, { once: true });
        cleanups.push(() => signal.removeEventListener('abort', onAbort));
      }
      state.output.reset();
      this.#post(state, { type: 'execute', id, code });
    });
    for (const cleanup of cleanups) cleanup();
    if (outcome.kind === 'disposed') {
      this.#execution = undefined;
      throw disposedError();
    }
    const output = withoutFinalNewline(state.output.read());
    if (outcome.kind === 'ended' || (outcome.kind === 'stopped' && !outcome.restart)) {
      // The worker ended the code itself (a stopped one too): every variable is still there.
      await snapshot;
      this.#execution = undefined;
      const error =
        outcome.kind === 'ended'
          ? boundError(outcome.error, this.#limits.maxOutputChars)
          : outcome.reason;
      return error === undefined
        ? { output, durationMs: durationMs() }
        : { output, error, durationMs: durationMs() };
    }
    this.#execution = undefined;
    const note = await this.#restart(state);
    return { output, error: `${outcome.reason}; ${note}`, durationMs: durationMs() };
  }

  /**
   * Asks the worker to stop `execution`: its interrupt handler stops code that computes, a
   * `stop` message ends code that waits. Code inside one long native built-in sees neither:
   * after {@link stopGraceMs} its worker is terminated and replaced.
   */
  #stop(state: WorkerState, execution: RunningExecution, reason: string): void {
    if (execution.stopReason !== undefined || this.#execution !== execution) return;
    execution.stopReason = reason;
    Atomics.store(state.control, 0, execution.id);
    this.#post(state, { type: 'stop', id: execution.id });
    const timer = setTimeout(() => {
      if (this.#execution === execution) {
        execution.finish({ kind: 'stopped', reason, restart: true });
      }
    }, stopGraceMs);
    timer.unref();
  }

  #memoryFault(): string {
    return `Execution exceeded the memory limit (${this.#limits.memoryMb} MB)`;
  }

  /** Replaces a faulted worker; says, in words, what the model gets back. */
  async #restart(state: WorkerState): Promise<string> {
    const lost = new Set(
      this.#modelVariables.filter(
        (name) => !this.#snapshot.has(name) && !this.#hostVariables.has(name),
      ),
    );
    const restarted = new SandboxError('@rlm/sandbox-quickjs: the sandbox restarted');
    replacedWorkerErrors.add(restarted);
    this.#terminate(state, restarted);
    if (this.#disposal) return 'the sandbox was disposed.';
    try {
      for (const name of await this.#ensureWorker().ready) lost.add(name);
    } catch (error) {
      if (this.#disposal) throw disposedError();
      return `the sandbox could not restart (${describe(error)}).`;
    }
    const restored = 'the sandbox restarted with its variables as of before this execution';
    return lost.size === 0
      ? `${restored}.`
      : `${restored}, except ${[...lost].sort().join(', ')} (functions, class instances and large values cannot be restored).`;
  }

  // ---- the worker ----

  #ensureWorker(): WorkerState {
    if (this.#current) return this.#current;
    const { memoryMb, maxOutputChars, timeoutMs } = this.#limits;
    const output = OutputBuffer.create(maxOutputChars);
    const control = new SharedArrayBuffer(4);
    const setup: WorkerSetup = {
      outputBuffer: output.buffer,
      control,
      requestTimeoutMs: Math.max(timeoutMs, minRequestWaitMs),
      maxOutputChars,
      hostFunctionNames: Object.keys(this.#hostFunctions),
      endingFunctionNames: this.#endingFunctionNames,
      internalHostFunctionNames: Object.keys(this.#internalHostFunctions),
      isolatedEvaluatorName,
      guestHelpers: this.#guestHelpers,
      snapshotLimitChars: this.#config.snapshotLimitChars,
      snapshotTimeoutMs: Math.min(Math.max(timeoutMs / 2, minSnapshotMs), maxSnapshotMs),
    };
    const { pool } = this.#config;
    const starting = pool.takeStarting<string[]>(memoryMb);
    const { worker } = starting;
    const state: WorkerState = { ...starting, output, control: new Int32Array(control) };
    this.#current = state;
    worker.on('message', (message: WorkerMessage) => {
      if (this.#current === state) this.#onMessage(state, message);
    });
    worker.on('error', (error) => this.#onFailure(state, error));
    worker.on('exit', (code) => this.#onFailure(state, new Error(`it exited with code ${code}`)));
    if (this.#busy > 0) worker.ref();
    worker.postMessage({ type: 'setup', setup } satisfies WorkerSetupMessage);
    this.#post(state, { type: 'restore', variables: this.#restoreRecords() });
    return state;
  }

  #restoreRecords(): RestoreRecord[] {
    const records: RestoreRecord[] = [...this.#hostVariables.values()];
    for (const [name, text] of this.#snapshot) {
      records.push({ name, text, owner: 'model', readOnly: false });
    }
    return records;
  }

  #onMessage(state: WorkerState, message: WorkerMessage): void {
    switch (message.type) {
      case 'ready':
        state.markReady([...message.unrestored]);
        return;
      case 'fault':
        state.fault = message;
        return;
      case 'ended': {
        const execution = this.#execution;
        if (execution?.id !== message.id) return;
        if (message.outOfMemory) {
          execution.finish({ kind: 'fault', reason: this.#memoryFault() });
        } else if (execution.stopReason !== undefined) {
          execution.finish({ kind: 'stopped', reason: execution.stopReason, restart: false });
        } else {
          execution.finish({ kind: 'ended', error: message.error });
        }
        return;
      }
      case 'executed':
        this.#commitSnapshot(message.snapshot);
        if (this.#execution?.id === message.id) this.#execution.snapshotTaken();
        return;
      case 'listing':
      case 'reply': {
        const request = this.#requests.get(message.id);
        if (request === undefined) return;
        this.#requests.delete(message.id);
        clearTimeout(request.watchdog);
        if (message.type === 'reply' && !message.ok) {
          request.reject(new SandboxError(`@rlm/sandbox-quickjs: ${message.message}`));
        } else request.resolve(message);
        return;
      }
      case 'calls':
        for (const call of message.calls) this.#callHost(state, call.id, call.name, call.args);
        return;
    }
  }

  #commitSnapshot(entries: readonly SnapshotEntry[]): void {
    const names = new Set<string>();
    for (const entry of entries) {
      names.add(entry.name);
      if (entry.state === 'copied') this.#snapshot.set(entry.name, entry.text);
      else if (entry.state === 'lost') this.#snapshot.delete(entry.name);
    }
    for (const name of this.#snapshot.keys()) if (!names.has(name)) this.#snapshot.delete(name);
    this.#modelVariables = [...names];
  }

  #onFailure(state: WorkerState, error: Error): void {
    const { fault } = state;
    const reason =
      (error as { code?: unknown }).code === 'ERR_WORKER_OUT_OF_MEMORY' || fault?.outOfMemory
        ? this.#memoryFault()
        : fault !== undefined
          ? `The sandbox's engine failed (${fault.reason})`
          : `The sandbox worker stopped: ${error.message}`;
    state.failStart(
      new SandboxError(`@rlm/sandbox-quickjs: the sandbox worker failed: ${error.message}`, {
        cause: error,
      }),
    );
    if (this.#current !== state) return;
    this.#execution?.finish({ kind: 'fault', reason });
    this.#execution?.snapshotTaken();
    this.#terminate(state, new SandboxError(`@rlm/sandbox-quickjs: ${reason}`, { cause: error }));
  }

  /** Terminates a worker and fails what waits on it. The next use starts a new one. */
  #terminate(state: WorkerState, error: Error): void {
    if (this.#current === state) this.#current = undefined;
    for (const request of this.#requests.values()) {
      clearTimeout(request.watchdog);
      request.reject(error);
    }
    this.#requests.clear();
    state.failStart(error);
    const stopping = state.worker.terminate();
    this.#stopping.add(stopping);
    void stopping.finally(() => this.#stopping.delete(stopping));
  }

  #post(state: WorkerState, message: HostMessage): void {
    state.worker.postMessage(message);
  }

  // ---- host calls and requests ----

  #callHost(state: WorkerState, id: number, name: string, argumentsText: string): void {
    let pending: Promise<unknown>;
    try {
      const hostFunction = Object.hasOwn(this.#hostFunctions, name)
        ? this.#hostFunctions[name]
        : Object.hasOwn(this.#internalHostFunctions, name)
          ? this.#internalHostFunctions[name]
          : undefined;
      if (hostFunction === undefined) throw new Error(`${name} is not a host function`);
      const args = decodeGraph(JSON.parse(argumentsText) as EncodedGraph);
      if (!Array.isArray(args)) throw new Error(`${name}: its arguments did not arrive as a list`);
      pending = Promise.resolve(hostFunction(...args));
    } catch (error) {
      pending = Promise.reject(error);
    }
    // Time the host spent on the call so far counted as the execution's; from now on only the
    // worker's busy time counts until the call settles.
    const clock = this.#execution?.clock;
    clock?.callStarted();
    const answer = (reply: string) => {
      clock?.callSettled();
      if (this.#current !== state || this.#disposal) return;
      this.#sendResult(state, { id, reply });
    };
    pending.then(
      (value) => {
        let reply: string;
        try {
          reply = JSON.stringify({ value }) ?? '{}';
        } catch (error) {
          reply = JSON.stringify({
            error: `${name} returned data that cannot be copied into the sandbox (${describe(error)})`,
          });
        }
        answer(reply);
      },
      (error: unknown) => answer(JSON.stringify({ error: describe(error) || `${name} failed` })),
    );
  }

  /** Sends a settled call's result, with the others that settle in the same turn. */
  #sendResult(state: WorkerState, result: HostResult): void {
    if (this.#results.push(result) > 1) return;
    queueMicrotask(() => {
      const results = this.#results;
      this.#results = [];
      if (this.#current === state) this.#post(state, { type: 'host-results', results });
    });
  }

  /**
   * Sends a request to the worker; when the worker is replaced before it answers, sends it once
   * more, to the new worker.
   */
  async #request(message: RequestMessage): Promise<WorkerMessage> {
    try {
      return await this.#send(message);
    } catch (error) {
      if (this.#disposal || !replacedWorkerErrors.has(error as Error)) throw error;
      return this.#send(message);
    }
  }

  async #send(message: RequestMessage): Promise<WorkerMessage> {
    if (this.#disposal) throw disposedError();
    const state = this.#ensureWorker();
    return this.#hold(
      state.ready.then(
        () =>
          new Promise<WorkerMessage>((resolve, reject) => {
            if (this.#disposal) throw disposedError();
            const id = this.#nextId++;
            const watchdog = this.#watchRequest(state, id);
            this.#requests.set(id, { resolve, reject, watchdog });
            this.#post(state, { ...message, id });
          }),
      ),
    );
  }

  /**
   * The worker answers requests between executions at once, and interrupts its own work on one
   * after `timeoutMs` (at least {@link minRequestWaitMs}); only a native built-in that runs
   * longer holds it. A request unanswered for twice that while no execution runs restarts the
   * worker, as a timeout would.
   */
  #watchRequest(state: WorkerState, id: number): ReturnType<typeof setTimeout> {
    const waitMs = Math.min(
      2 * Math.max(this.#limits.timeoutMs, minRequestWaitMs),
      maxTimerDelayMs,
    );
    return setTimeout(() => {
      const request = this.#requests.get(id);
      if (request === undefined || this.#current !== state) return;
      if (this.#execution !== undefined) {
        this.#requests.set(id, { ...request, watchdog: this.#watchRequest(state, id) });
        return;
      }
      const error = new SandboxError(
        `@rlm/sandbox-quickjs: the sandbox did not answer within ${waitMs} ms and restarted`,
      );
      replacedWorkerErrors.add(error);
      this.#terminate(state, error);
    }, waitMs);
  }

  /** Keeps the worker referenced (the process alive) while `work` runs. */
  async #hold<T>(work: Promise<T>): Promise<T> {
    if (this.#busy++ === 0) this.#current?.worker.ref();
    try {
      return await work;
    } finally {
      if (--this.#busy === 0) this.#current?.worker.unref();
    }
  }

  async #shutDown(): Promise<void> {
    this.#execution?.finish({ kind: 'disposed' });
    this.#execution?.snapshotTaken();
    if (this.#current) this.#terminate(this.#current, disposedError());
    await Promise.all([...this.#stopping, this.#config.pool.close()]);
  }
}
