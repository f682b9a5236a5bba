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
  type SnapshotVariablesOptions,
  type VariableInfo,
  type VariableSnapshotEntry,
} from '@rlm/core';
import type { WorkerPool } from '@rlm/core/sandbox-support';
import { checkSandboxOptions } from './check-sandbox-options.js';
import { describeError } from './describe-error.js';
import { HostCallRouter } from './host-call-router.js';
import { type RunningExecution, runInWorker } from './run-in-worker.js';
import type { SesWorker } from './ses-worker.js';
import { SandboxVariables } from './sandbox-variables.js';
import { VariableCopies } from './variable-copies.js';
import { WorkerLifecycle } from './worker-lifecycle.js';
import type { WorkerMessage } from './worker-protocol.js';
import { markReplacedWorker, WorkerRequests } from './worker-requests.js';

const mebibyte = 1024 * 1024;

/** Settings of {@link SesSandbox} besides the `SandboxOptions` of each sandbox. */
export interface SesSandboxConfig {
  /** Starts the workers (and keeps a spare); shared by the sandboxes of one factory. */
  readonly pool: WorkerPool;
  readonly snapshotLimitBytes: number;
  /**
   * Most bytes one value may take to cross from the worker to the host (host-call arguments, a
   * variable read with `getVariable`); the sandbox's `memoryMb` caps it too.
   */
  readonly transferLimitBytes: number;
}

/** An execution's error, cut to `maxChars` like its output. */
function boundError(error: string | undefined, maxChars: number): string | undefined {
  if (error === undefined || error.length <= maxChars) return error;
  return `${error.slice(0, maxChars)}\n[… ${error.length - maxChars} more characters of the error dropped]`;
}

function disposedError(): SandboxError {
  return new SandboxError('@rlm/sandbox-ses: the sandbox is disposed; create a new one');
}

/**
 * A {@link Sandbox} that runs model code in a SES Compartment inside a `worker_thread`. Create
 * it with `createSesSandbox()`; see the package README for the guarantees. It runs executions
 * and routes its worker's messages; {@link WorkerRequests} answers the requests between them,
 * {@link HostCallRouter} the host calls, {@link VariableCopies} restores a new worker.
 */
export class SesSandbox implements Sandbox {
  /** `Utf8Text` values cross to the worker as their bytes, shared, and are decoded there. */
  readonly acceptsUtf8Text = true;
  readonly #hostFunctions: Readonly<Record<string, HostFunction>>;
  /** Host functions whose call ends the execution (see `SandboxOptions.endingFunctions`). */
  readonly #endingFunctionNames: readonly string[];
  /** Host functions only guest helpers hold (see `SandboxOptions.internalHostFunctions`). */
  readonly #internalHostFunctions: Readonly<Record<string, HostFunction>>;
  readonly #guestHelpers: Readonly<Record<string, string>>;
  readonly #limits: SandboxLimits;
  readonly #config: SesSandboxConfig;
  /** Bytes one value may take to leave the worker: the setting, at most the memory limit. */
  readonly #transferLimitBytes: number;
  readonly #hostCalls: HostCallRouter;
  readonly #copies = new VariableCopies();
  readonly #requests: WorkerRequests;
  readonly #variables: SandboxVariables;
  readonly #workers: WorkerLifecycle;
  #execution: RunningExecution | undefined;
  /** The listing the worker sends once idle after the last execution (see `listVariables`). */
  #listingAfterExecution:
    | { readonly worker: SesWorker; readonly listing: Promise<VariableInfo[]> }
    | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #nextId = 1;
  #disposal: Promise<void> | undefined;

  private constructor(options: SandboxOptions, config: SesSandboxConfig) {
    this.#hostFunctions = { ...options.hostFunctions };
    this.#endingFunctionNames = (options.endingFunctions ?? []).filter((name) =>
      Object.hasOwn(options.hostFunctions, name),
    );
    this.#internalHostFunctions = { ...options.internalHostFunctions };
    this.#guestHelpers = { ...options.guestHelpers };
    this.#limits = { ...defaultSandboxLimits, ...options.limits };
    this.#config = config;
    this.#transferLimitBytes = Math.min(
      config.transferLimitBytes,
      this.#limits.memoryMb * mebibyte,
    );
    this.#hostCalls = new HostCallRouter(
      this.#hostFunctions,
      this.#internalHostFunctions,
      this.#transferLimitBytes,
    );
    this.#workers = new WorkerLifecycle({
      start: () => ({
        pool: config.pool,
        memoryMb: this.#limits.memoryMb,
        maxOutputChars: this.#limits.maxOutputChars,
        setup: {
          hostFunctionNames: Object.keys(this.#hostFunctions),
          endingFunctionNames: this.#endingFunctionNames,
          internalHostFunctionNames: Object.keys(this.#internalHostFunctions),
          isolatedEvaluatorName,
          guestHelpers: this.#guestHelpers,
          snapshotLimitBytes: config.snapshotLimitBytes,
          transferLimitBytes: this.#transferLimitBytes,
        },
        variables: this.#copies.records(),
      }),
      onMessage: (worker, message) => this.#onMessage(worker, message),
      onFailure: (worker, error) => this.#onFailure(worker, error),
      onStop: (_worker, error, wasCurrent) => {
        // Calls of a stopped worker are abandoned: their arguments no longer count.
        if (wasCurrent) this.#hostCalls.abandonAll();
        this.#variables.workerStopped();
        this.#requests.rejectAll(error);
      },
    });
    this.#requests = new WorkerRequests({
      worker: () => this.#workers.ensure(),
      isCurrent: (worker) => this.#workers.current === worker,
      isDisposed: () => this.#disposal !== undefined,
      isExecuting: () => this.#execution !== undefined,
      stopHeld: (worker, error) => this.#workers.stop(worker, error),
      hold: (work) => this.#workers.hold(work),
      unpack: (transferred, what) => this.#hostCalls.unpack(transferred, what),
      disposedError,
      timeoutMs: this.#limits.timeoutMs,
    });
    this.#variables = new SandboxVariables(this.#requests, this.#copies, (name) =>
      this.#isFixedName(name),
    );
  }

  /** Starts a sandbox; resolves once its worker is ready. */
  static async create(options: SandboxOptions, config: SesSandboxConfig): Promise<SesSandbox> {
    checkSandboxOptions(options);
    const sandbox = new SesSandbox(options, config);
    config.pool.open();
    try {
      await sandbox.#workers.hold(sandbox.#workers.ensure().ready);
    } catch (error) {
      await sandbox.dispose();
      throw error;
    }
    return sandbox;
  }

  execute(code: string, options: ExecuteOptions = {}): Promise<ExecuteResult> {
    if (this.#disposal) return Promise.reject(disposedError());
    const run = this.#queue.then(() => this.#workers.hold(this.#run(code, options)));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /**
   * The variables, sorted by name. After an execution, and until a message that may change
   * them, the listing the worker sent once idle after it, without asking again.
   */
  listVariables(): Promise<VariableInfo[]> {
    const after = this.#listingAfterExecution;
    if (
      this.#disposal === undefined &&
      after !== undefined &&
      after.worker === this.#workers.current &&
      after.worker.unchangedSinceExecution
    ) {
      // Waited for as a request is (the worker keeps the process alive meanwhile); a worker
      // replaced meanwhile (held by code the execution left running) is asked anew.
      return this.#workers.hold(after.listing).catch(() => this.#variables.list());
    }
    return this.#variables.list();
  }

  getVariable(name: string): Promise<unknown> {
    return this.#variables.get(name);
  }

  setVariables(
    values: Readonly<Record<string, unknown>>,
    options: SetVariablesOptions = {},
  ): Promise<void> {
    return this.#variables.set(values, options);
  }

  /** See {@link SandboxVariables.snapshot}. */
  snapshotVariables(options: SnapshotVariablesOptions): Promise<VariableSnapshotEntry[]> {
    return this.#variables.snapshot(options);
  }

  /** Defines model variables from `snapshotVariables` bytes, decoded inside the worker. */
  restoreVariables(bytesByName: Readonly<Record<string, Uint8Array>>): Promise<string[]> {
    return this.#variables.restore(bytesByName);
  }

  /** Host functions, guest helpers, `print` and `console`: names no variable can take. */
  #isFixedName(name: string): boolean {
    return (
      name === 'print' ||
      name === 'console' ||
      Object.hasOwn(this.#hostFunctions, name) ||
      Object.hasOwn(this.#guestHelpers, name)
    );
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
    const state = this.#workers.ensure();
    await state.ready;
    if (this.#disposal) throw disposedError();
    const memoryLimitBytes = this.#limits.memoryMb * mebibyte;
    const bounds = {
      timeoutMs: Math.max(0, options.timeoutMs ?? this.#limits.timeoutMs),
      hostWaitMs: this.#limits.hostWaitMs,
      memoryLimitBytes,
      memoryFault: this.#memoryFault(),
      signal,
    };
    this.#listingAfterExecution = undefined;
    const listing = this.#requests.awaitListing(state);
    const outcome = await runInWorker(
      state,
      this.#nextId++,
      code,
      listing.id,
      bounds,
      (execution) => {
        this.#execution = execution;
      },
    );
    this.#execution = undefined;
    if (outcome.kind === 'disposed') throw disposedError();
    const output = state.output.read();
    if (outcome.kind === 'executed') {
      if (outcome.arrayBufferBytes <= memoryLimitBytes) {
        this.#listingAfterExecution = {
          worker: state,
          listing: listing.listing as Promise<VariableInfo[]>,
        };
        const error = boundError(outcome.error, this.#limits.maxOutputChars);
        return { output, error, durationMs: durationMs() };
      }
      const note = await this.#restart(state);
      return { output, error: `${this.#memoryFault()}; ${note}`, durationMs: durationMs() };
    }
    const note = await this.#restart(state);
    return { output, error: `${outcome.reason}; ${note}`, durationMs: durationMs() };
  }

  #memoryFault(): string {
    return `Execution exceeded the memory limit (${this.#limits.memoryMb} MB)`;
  }

  /** Replaces a faulted worker; says, in words, what the model gets back. */
  async #restart(state: SesWorker): Promise<string> {
    const lost = this.#copies.uncopied();
    this.#workers.stop(
      state,
      markReplacedWorker(new SandboxError('@rlm/sandbox-ses: the sandbox restarted')),
    );
    if (this.#disposal) return 'the sandbox was disposed.';
    try {
      for (const name of await this.#workers.ensure().ready) lost.add(name);
    } catch (error) {
      if (this.#disposal) throw disposedError();
      return `the sandbox could not restart (${describeError(error)}).`;
    }
    const restored = 'the sandbox restarted with its variables as of before this execution';
    return lost.size === 0
      ? `${restored}.`
      : `${restored}, except ${[...lost].sort().join(', ')} (functions, class instances and large values cannot be restored).`;
  }

  // ---- the worker ----

  /** Routes a message of the current worker. */
  #onMessage(state: SesWorker, message: WorkerMessage): void {
    if (this.#requests.handle(state, message)) return;
    switch (message.type) {
      case 'started':
      case 'code-cache':
        // The pool's business.
        return;
      case 'ready':
        state.markReady([...message.unrestored]);
        return;
      case 'memory':
        this.#execution?.memory.report(message.arrayBufferBytes);
        return;
      case 'executed':
        this.#copies.commit(message.snapshot);
        if (this.#execution?.id === message.id) {
          this.#execution.finish({
            kind: 'executed',
            error: message.error,
            arrayBufferBytes: message.arrayBufferBytes,
          });
        }
        return;
      case 'call': {
        const worker = {
          isCurrent: () => this.#workers.current === state && this.#disposal === undefined,
          post: state.post,
        };
        this.#hostCalls.call(
          worker,
          message.id,
          message.name,
          message.args,
          this.#execution?.clock,
        );
        return;
      }
    }
  }

  #onFailure(state: SesWorker, error: Error): void {
    const reason =
      (error as { code?: unknown }).code === 'ERR_WORKER_OUT_OF_MEMORY'
        ? this.#memoryFault()
        : `The sandbox worker stopped: ${error.message}`;
    state.failStart(
      new SandboxError(`@rlm/sandbox-ses: the sandbox worker failed: ${error.message}`, {
        cause: error,
      }),
    );
    if (this.#workers.current !== state) return;
    this.#execution?.finish({ kind: 'fault', reason });
    this.#workers.stop(state, new SandboxError(`@rlm/sandbox-ses: ${reason}`, { cause: error }));
  }

  async #shutDown(): Promise<void> {
    this.#execution?.finish({ kind: 'disposed' });
    await Promise.all([this.#workers.stopAll(disposedError()), this.#config.pool.close()]);
  }
}
