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
  SnapshotPreemptedError,
  type SandboxOptions,
  type SetVariablesOptions,
  type SnapshotVariablesOptions,
  type VariableInfo,
  type VariableSnapshotEntry,
} from '@rlm/core';
import {
  ExecutionClock,
  OutputBuffer,
  type WorkerPool,
  watchExecutionTime,
} from '@rlm/core/sandbox-support';
import { compareNames } from './compare-names.js';
import { describeBytes } from './describe-bytes.js';
import { hostVariableRecord } from './host-variable-record.js';
import { isIdentifierName } from './is-identifier-name.js';
import { deserializeValue } from './serialize-value.js';
import type {
  HostMessage,
  SnapshotEntry,
  Transferred,
  VariableRecord,
  WorkerMessage,
  WorkerSnapshotEntry,
  WorkerSetup,
  WorkerSetupMessage,
} from './worker-protocol.js';

/** How often the host samples memory while code runs, in milliseconds. */
const memoryCheckIntervalMs = 20;
/** How long a worker gets to report its memory before it counts as busy allocating. */
const memoryProbeTimeoutMs = 100;
const mebibyte = 1024 * 1024;
/** Node fires longer timers at once; a longer timeout waits this long. */
const maxTimerDelayMs = 2 ** 31 - 1;
/** A request waits at least this long before a silent worker counts as held: large copies take time. */
const minRequestWaitMs = 1_000;

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

/** A running worker and what the host knows of it. */
interface WorkerState {
  readonly worker: Worker;
  /**
   * Its executions' output, shared memory of this worker alone: a worker that is being
   * terminated (a timeout, a memory fault) may still write for a moment, and must never write
   * into the output of the next worker's execution.
   */
  readonly output: OutputBuffer;
  /** Resolves with the variables the worker could not restore, once it is ready. */
  readonly ready: Promise<string[]>;
  markReady(unrestored: string[]): void;
  failStart(error: Error): void;
  /** The variable listing as this worker last sent it (it sends what changed since). */
  readonly listing: Map<string, VariableInfo>;
}

/** A request to the worker that `#request` answers. */
type RequestMessage =
  | { readonly type: 'list' }
  | { readonly type: 'get'; readonly name: string }
  | { readonly type: 'set'; readonly variables: readonly VariableRecord[] }
  | {
      readonly type: 'snapshot-variables';
      readonly exclude: readonly string[];
      readonly maxBytesPerVariable: number;
      readonly previousDigests: Readonly<Record<string, string>> | 'as-reported';
    }
  | {
      readonly type: 'restore-variables';
      readonly variables: readonly { readonly name: string; readonly bytes: Uint8Array }[];
    };

/** How an execution ended, seen from the host. */
type Outcome =
  | {
      readonly kind: 'executed';
      readonly error: string | undefined;
      readonly arrayBufferBytes: number;
    }
  | { readonly kind: 'fault'; readonly reason: string }
  | { readonly kind: 'disposed' };

interface PendingRequest {
  resolve(value: unknown): void;
  reject(error: Error): void;
  /** Restarts a worker that leaves the request unanswered (see `#watchRequest`). */
  readonly watchdog: ReturnType<typeof setTimeout>;
}

/**
 * Errors that failed requests because their worker was replaced, not because of the request:
 * such a request is sent once more, to the new worker.
 */
const replacedWorkerErrors = new WeakSet<Error>();

/** An execution's error, cut to `maxChars` like its output. */
function boundError(error: string | undefined, maxChars: number): string | undefined {
  if (error === undefined || error.length <= maxChars) return error;
  return `${error.slice(0, maxChars)}\n[… ${error.length - maxChars} more characters of the error dropped]`;
}

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
  return new SandboxError('@rlm/sandbox-ses: the sandbox is disposed; create a new one');
}

/**
 * A {@link Sandbox} that runs model code in a SES Compartment inside a `worker_thread`. Create
 * it with `createSesSandbox()`; see the package README for the guarantees.
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
  /** Bytes of the arguments of the current worker's host calls not yet settled. */
  #callBytes = 0;
  /** Variables set by the host: restored into every new worker. */
  readonly #hostVariables = new Map<string, { value: unknown; readOnly: boolean }>();
  /**
   * Copies of model variables as of the last execution, restored into a new worker: their
   * structured clones as bytes, which the host never decodes.
   */
  readonly #snapshot = new Map<string, { bytes: Uint8Array; isConst: boolean }>();
  /** The digests the worker's last checkpoint snapshot reported (see `snapshotVariables`). */
  #reportedDigests: ReadonlyMap<string, string> | undefined;
  #snapshotsInFlight = 0;
  /** Model variables after the last execution, to tell which a restart loses. */
  #modelVariables: readonly string[] = [];
  readonly #requests = new Map<number, PendingRequest>();
  readonly #stopping = new Set<Promise<number>>();
  #current: WorkerState | undefined;
  #execution:
    | { readonly id: number; readonly clock: ExecutionClock; finish(outcome: Outcome): void }
    | undefined;
  #onMemoryReport: ((arrayBufferBytes: number) => void) | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #nextId = 1;
  #busy = 0;
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
  }

  /** Starts a sandbox; resolves once its worker is ready. */
  static async create(options: SandboxOptions, config: SesSandboxConfig): Promise<SesSandbox> {
    for (const [name, fn] of Object.entries(options.hostFunctions)) {
      if (!isIdentifierName(name) || name === 'print' || name === 'console') {
        throw new SandboxError(
          `@rlm/sandbox-ses: host function name ${JSON.stringify(name)} is not usable; use an identifier other than print and console`,
        );
      }
      if (typeof fn !== 'function') {
        throw new SandboxError(`@rlm/sandbox-ses: host function ${name} is not a function`);
      }
    }
    for (const [name, fn] of Object.entries(options.internalHostFunctions ?? {})) {
      if (
        !isIdentifierName(name) ||
        name === isolatedEvaluatorName ||
        Object.hasOwn(options.hostFunctions, name) ||
        Object.hasOwn(options.guestHelpers ?? {}, name) ||
        typeof fn !== 'function'
      ) {
        throw new SandboxError(
          `@rlm/sandbox-ses: internal host function ${JSON.stringify(name)} needs an identifier name not taken by ${isolatedEvaluatorName}, a host function or a guest helper, and a function`,
        );
      }
    }
    for (const [name, source] of Object.entries(options.guestHelpers ?? {})) {
      if (
        !isIdentifierName(name) ||
        name === 'print' ||
        name === 'console' ||
        Object.hasOwn(options.hostFunctions, name) ||
        typeof source !== 'string'
      ) {
        throw new SandboxError(
          `@rlm/sandbox-ses: guest helper ${JSON.stringify(name)} needs an identifier name not taken by print, console or a host function, and function source text`,
        );
      }
    }
    const sandbox = new SesSandbox(options, config);
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

  listVariables(): Promise<VariableInfo[]> {
    return this.#request({ type: 'list' }) as Promise<VariableInfo[]>;
  }

  getVariable(name: string): Promise<unknown> {
    return this.#request({ type: 'get', name });
  }

  async setVariables(
    values: Readonly<Record<string, unknown>>,
    options: SetVariablesOptions = {},
  ): Promise<void> {
    const readOnly = options.readOnly ?? false;
    for (const name of Object.keys(values)) {
      if (!isIdentifierName(name) || this.#isFixedName(name)) {
        throw new SandboxError(
          `@rlm/sandbox-ses: cannot set ${JSON.stringify(name)}: use an identifier that is not a host function`,
        );
      }
    }
    const variables = Object.entries(values).map(([name, value]) =>
      hostVariableRecord(name, value, readOnly),
    );
    await this.#request({ type: 'set', variables });
    for (const [name, value] of Object.entries(values)) {
      this.#hostVariables.set(name, { value, readOnly });
      this.#snapshot.delete(name);
    }
  }

  /**
   * Snapshots every model variable in one message to the worker, which copies, serialises
   * (structured clone) and hashes each one itself; only changed variables' bytes cross, moved
   * rather than copied. The worker takes it in slices: an execution (or a change of variables)
   * asked for meanwhile preempts it, and it rejects with `SnapshotPreemptedError`; what it made
   * of values that execution cannot have changed serves the next snapshot.
   */
  async snapshotVariables(options: SnapshotVariablesOptions): Promise<VariableSnapshotEntry[]> {
    if (!(Number.isSafeInteger(options.maxBytesPerVariable) && options.maxBytesPerVariable > 0)) {
      throw new SandboxError(
        `@rlm/sandbox-ses: maxBytesPerVariable must be a positive integer of bytes, got ${options.maxBytesPerVariable}`,
      );
    }
    // Digests equal to those the worker last reported need not cross again (they grow with
    // the variables); only while no other snapshot is in flight, whose answer would change them.
    const reported = this.#snapshotsInFlight === 0 ? this.#reportedDigests : undefined;
    const previousDigests =
      reported !== undefined && sameDigests(options.previousDigests ?? {}, reported)
        ? 'as-reported'
        : { ...options.previousDigests };
    this.#snapshotsInFlight += 1;
    this.#reportedDigests = undefined;
    try {
      const sent = (await this.#request({
        type: 'snapshot-variables',
        exclude: [...(options.exclude ?? [])],
        maxBytesPerVariable: options.maxBytesPerVariable,
        previousDigests,
      })) as WorkerSnapshotEntry[];
      const entries = sent.map((entry) => fromWorker(entry, options.previousDigests ?? {}));
      if (this.#snapshotsInFlight === 1) this.#reportedDigests = reportedDigestsOf(entries);
      return entries;
    } finally {
      this.#snapshotsInFlight -= 1;
    }
  }

  /** Defines model variables from `snapshotVariables` bytes, decoded inside the worker. */
  async restoreVariables(bytesByName: Readonly<Record<string, Uint8Array>>): Promise<string[]> {
    const variables = Object.entries(bytesByName).map(([name, bytes]) => ({ name, bytes }));
    for (const { name, bytes } of variables) {
      if (!isIdentifierName(name) || this.#isFixedName(name) || !(bytes instanceof Uint8Array)) {
        throw new SandboxError(
          `@rlm/sandbox-ses: cannot restore ${JSON.stringify(name)}: give an identifier that is not a host function, with the Uint8Array snapshotVariables made`,
        );
      }
    }
    if (variables.length === 0) return [];
    return (await this.#request({ type: 'restore-variables', variables })) as string[];
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
    const state = this.#ensureWorker();
    await state.ready;
    if (this.#disposal) throw disposedError();
    const timeoutMs = Math.max(0, options.timeoutMs ?? this.#limits.timeoutMs);
    const memoryLimitBytes = this.#limits.memoryMb * mebibyte;
    const id = this.#nextId++;
    const cleanups: (() => void)[] = [];
    const outcome = await new Promise<Outcome>((finish) => {
      const { performance: workerPerformance } = state.worker;
      const clock = new ExecutionClock(
        () => performance.now(),
        () => workerPerformance.eventLoopUtilization().active,
      );
      this.#execution = { id, clock, finish };
      cleanups.push(
        watchExecutionTime(clock, { timeoutMs, hostWaitMs: this.#limits.hostWaitMs }, (reason) =>
          finish({ kind: 'fault', reason }),
        ),
      );
      if (signal) {
        const onAbort = () => finish({ kind: 'fault', reason: 'Execution aborted' });
        signal.addEventListener('abort', onAbort, { once: true });
        cleanups.push(() => signal.removeEventListener('abort', onAbort));
      }
      cleanups.push(
        this.#watchMemory(state, memoryLimitBytes, () =>
          finish({ kind: 'fault', reason: this.#memoryFault() }),
        ),
      );
      // A worker held by code an earlier execution left running never resets it.
      state.output.reset();
      this.#post(state, { type: 'execute', id, code });
    });
    for (const cleanup of cleanups) cleanup();
    this.#execution = undefined;
    if (outcome.kind === 'disposed') throw disposedError();
    const output = state.output.read();
    if (outcome.kind === 'executed') {
      if (outcome.arrayBufferBytes <= memoryLimitBytes) {
        const error = boundError(outcome.error, this.#limits.maxOutputChars);
        return { output, error, durationMs: durationMs() };
      }
      const note = await this.#restart(state);
      return { output, error: `${this.#memoryFault()}; ${note}`, durationMs: durationMs() };
    }
    const note = await this.#restart(state);
    return { output, error: `${outcome.reason}; ${note}`, durationMs: durationMs() };
  }

  /**
   * V8's heap limit does not count ArrayBuffers, so while code runs the host watches the
   * process's resident memory, less what the host's own isolate grew by (its heap and external
   * memory: a value a host function is storing, say). Past the limit it asks the worker for its
   * own ArrayBuffer total: a worker over the limit, or too busy to answer (allocating in
   * synchronous code), is stopped; growth elsewhere in the process (another sandbox) only moves
   * the baseline. Returns the cleanup.
   */
  #watchMemory(state: WorkerState, limitBytes: number, onFault: () => void): () => void {
    const measure = () => {
      const { rss, heapUsed, external } = process.memoryUsage();
      return { rss, host: heapUsed + external };
    };
    let baseline = measure();
    /** Resident memory grown since the baseline that the host's own isolate does not explain. */
    const grown = () => {
      // The resident size alone is cheap; the host's heap figures only matter past the limit.
      const rssGrowth = process.memoryUsage.rss() - baseline.rss;
      if (rssGrowth <= limitBytes) return rssGrowth;
      return rssGrowth - Math.max(0, measure().host - baseline.host);
    };
    let probeSentAt: number | undefined;
    this.#onMemoryReport = (arrayBufferBytes) => {
      if (arrayBufferBytes > limitBytes) {
        onFault();
        return;
      }
      baseline = measure();
      probeSentAt = undefined;
    };
    const check = setInterval(() => {
      if (grown() <= limitBytes) return;
      if (probeSentAt === undefined) {
        probeSentAt = performance.now();
        this.#post(state, { type: 'probe' });
      } else if (performance.now() - probeSentAt > memoryProbeTimeoutMs) {
        onFault();
      }
    }, memoryCheckIntervalMs);
    return () => {
      clearInterval(check);
      this.#onMemoryReport = undefined;
    };
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
    const restarted = new SandboxError('@rlm/sandbox-ses: the sandbox restarted');
    replacedWorkerErrors.add(restarted);
    this.#stop(state, restarted);
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
    const output = OutputBuffer.create(this.#limits.maxOutputChars);
    const setup: WorkerSetup = {
      outputBuffer: output.buffer,
      hostFunctionNames: Object.keys(this.#hostFunctions),
      endingFunctionNames: this.#endingFunctionNames,
      internalHostFunctionNames: Object.keys(this.#internalHostFunctions),
      isolatedEvaluatorName,
      guestHelpers: this.#guestHelpers,
      snapshotLimitBytes: this.#config.snapshotLimitBytes,
      transferLimitBytes: this.#transferLimitBytes,
    };
    const { pool } = this.#config;
    const { memoryMb } = this.#limits;
    const worker = pool.take(memoryMb);
    let markReady!: (unrestored: string[]) => void;
    let failStart!: (error: Error) => void;
    const ready = new Promise<string[]>((resolve, reject) => {
      markReady = resolve;
      failStart = reject;
    });
    ready.catch(() => undefined);
    // Once this worker is ready, a spare starts for the next sandbox (or restart).
    void ready.then(
      () => pool.prepareSpare(memoryMb),
      () => undefined,
    );
    const state: WorkerState = {
      worker,
      output,
      ready,
      markReady,
      failStart,
      listing: new Map(),
    };
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

  #restoreRecords(): VariableRecord[] {
    const records: VariableRecord[] = [];
    for (const [name, { value, readOnly }] of this.#hostVariables) {
      records.push(hostVariableRecord(name, value, readOnly));
    }
    for (const [name, { bytes, isConst }] of this.#snapshot) {
      records.push({
        name,
        value: bytes,
        owner: 'model',
        readOnly: false,
        isConst,
        serialized: true,
      });
    }
    return records;
  }

  #onMessage(state: WorkerState, message: WorkerMessage): void {
    switch (message.type) {
      case 'started':
      case 'code-cache':
        // The pool's business.
        return;
      case 'ready':
        state.markReady([...message.unrestored]);
        return;
      case 'memory':
        this.#onMemoryReport?.(message.arrayBufferBytes);
        return;
      case 'executed':
        this.#commitSnapshot(message.snapshot);
        if (this.#execution?.id === message.id) {
          this.#execution.finish({
            kind: 'executed',
            error: message.error,
            arrayBufferBytes: message.arrayBufferBytes,
          });
        }
        return;
      case 'reply': {
        const request = this.#takeRequest(message.id);
        if (request === undefined) return;
        if (!message.ok) {
          request.reject(new SandboxError(`@rlm/sandbox-ses: ${message.message}`));
          return;
        }
        try {
          request.resolve(this.#unpack(message.value, 'the value is'));
        } catch (error) {
          request.reject(
            new SandboxError(`@rlm/sandbox-ses: the value cannot be read (${describe(error)})`, {
              cause: error,
            }),
          );
        }
        return;
      }
      case 'variables-snapshot': {
        const request = this.#takeRequest(message.id);
        if (request === undefined) return;
        if ('preempted' in message) request.reject(new SnapshotPreemptedError());
        else request.resolve(message.entries);
        return;
      }
      case 'listing': {
        // Applied whatever became of the request: the next listing is relative to this one.
        for (const name of message.removed) state.listing.delete(name);
        for (const info of message.changed) state.listing.set(info.name, info);
        const request = this.#takeRequest(message.id);
        if (request === undefined) return;
        request.resolve([...state.listing.values()].sort((a, b) => compareNames(a.name, b.name)));
        return;
      }
      case 'request-progress': {
        // A long snapshot, taken in slices: the worker answers meanwhile, so it is not held.
        const request = this.#requests.get(message.id);
        if (request === undefined) return;
        clearTimeout(request.watchdog);
        this.#requests.set(message.id, {
          ...request,
          watchdog: this.#watchRequest(state, message.id),
        });
        return;
      }
      case 'call':
        this.#callHost(state, message.id, message.name, message.args);
        return;
    }
  }

  /** The request `id` waits for, no longer waiting (its watchdog cleared); `undefined` if none. */
  #takeRequest(id: number): PendingRequest | undefined {
    const request = this.#requests.get(id);
    if (request === undefined) return undefined;
    this.#requests.delete(id);
    clearTimeout(request.watchdog);
    return request;
  }

  #commitSnapshot(entries: readonly SnapshotEntry[]): void {
    const names = new Set<string>();
    for (const entry of entries) {
      names.add(entry.name);
      if (entry.state === 'copied') {
        this.#snapshot.set(entry.name, { bytes: entry.bytes, isConst: entry.isConst });
      } else if (entry.state === 'unchanged') {
        const previous = this.#snapshot.get(entry.name);
        if (previous) previous.isConst = entry.isConst;
      } else {
        this.#snapshot.delete(entry.name);
      }
    }
    for (const name of this.#snapshot.keys()) if (!names.has(name)) this.#snapshot.delete(name);
    this.#modelVariables = [...names];
  }

  #onFailure(state: WorkerState, error: Error): void {
    const reason =
      (error as { code?: unknown }).code === 'ERR_WORKER_OUT_OF_MEMORY'
        ? this.#memoryFault()
        : `The sandbox worker stopped: ${error.message}`;
    state.failStart(
      new SandboxError(`@rlm/sandbox-ses: the sandbox worker failed: ${error.message}`, {
        cause: error,
      }),
    );
    if (this.#current !== state) return;
    this.#execution?.finish({ kind: 'fault', reason });
    this.#stop(state, new SandboxError(`@rlm/sandbox-ses: ${reason}`, { cause: error }));
  }

  /** Terminates a worker and fails what waits on it. The next use starts a new one. */
  #stop(state: WorkerState, error: Error): void {
    if (this.#current === state) {
      this.#current = undefined;
      // Calls of a stopped worker are abandoned: their arguments no longer count.
      this.#callBytes = 0;
    }
    this.#reportedDigests = undefined;
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

  /**
   * A value that left the worker. The worker sized it before anything was cloned and sends a
   * small one as it is; a larger one comes as the bytes of its clone, decoded here only after
   * checking how many crossed: never more than the transfer limit, counting `pendingBytes`
   * already decoded and still held, whatever the worker sent.
   *
   * @param what the subject of the error, with its verb: `the value is`
   */
  #unpack(transferred: Transferred, what: string, pendingBytes = 0): unknown {
    const { bytes } = transferred;
    if (bytes === undefined) return transferred.plain;
    if (
      !(bytes instanceof Uint8Array) ||
      bytes.byteLength > this.#transferLimitBytes - pendingBytes
    ) {
      throw new Error(
        `${what} too large to leave the sandbox: over ${describeBytes(this.#transferLimitBytes)}, counting the ${pendingBytes} bytes of calls still pending`,
      );
    }
    return deserializeValue(bytes);
  }

  #callHost(state: WorkerState, id: number, name: string, transferred: Transferred): void {
    let pending: Promise<unknown>;
    /** Bytes of the arguments this call holds until it settles. */
    let callBytes = 0;
    try {
      const hostFunction = Object.hasOwn(this.#hostFunctions, name)
        ? this.#hostFunctions[name]
        : Object.hasOwn(this.#internalHostFunctions, name)
          ? this.#internalHostFunctions[name]
          : undefined;
      if (hostFunction === undefined) throw new Error(`${name} is not a host function`);
      const args = this.#unpack(transferred, `${name}: its arguments are`, this.#callBytes);
      if (!Array.isArray(args)) throw new Error(`${name}: its arguments did not arrive as a list`);
      callBytes = transferred.bytes?.byteLength ?? 0;
      pending = Promise.resolve(hostFunction(...args));
    } catch (error) {
      pending = Promise.reject(error);
    }
    // The running execution's clock counts only busy time until the call settles.
    const clock = this.#execution?.clock;
    clock?.callStarted();
    this.#callBytes += callBytes;
    const answer = (message: HostMessage) => {
      clock?.callSettled();
      if (this.#current === state) this.#callBytes -= callBytes;
      // A restarted or disposed sandbox abandons the calls of its old worker.
      if (this.#current !== state || this.#disposal) return;
      try {
        this.#post(state, message);
      } catch (error) {
        this.#post(state, {
          type: 'host-result',
          id,
          ok: false,
          message: `${name} returned a value that cannot be copied into the sandbox (${describe(error)})`,
        });
      }
    };
    pending.then(
      (value) => answer({ type: 'host-result', id, ok: true, value }),
      (error: unknown) =>
        answer({
          type: 'host-result',
          id,
          ok: false,
          message: describe(error) || `${name} failed`,
        }),
    );
  }

  /**
   * Sends a request to the worker; when the worker is replaced before it answers (a timeout,
   * or code left running by an earlier execution), sends it once more, to the new worker.
   */
  async #request(message: RequestMessage): Promise<unknown> {
    try {
      return await this.#send(message);
    } catch (error) {
      if (this.#disposal || !replacedWorkerErrors.has(error as Error)) throw error;
      return this.#send(message);
    }
  }

  async #send(message: RequestMessage): Promise<unknown> {
    if (this.#disposal) throw disposedError();
    const state = this.#ensureWorker();
    return this.#hold(
      state.ready.then(
        () =>
          new Promise<unknown>((resolve, reject) => {
            if (this.#disposal) throw disposedError();
            const id = this.#nextId++;
            const watchdog = this.#watchRequest(state, id);
            this.#requests.set(id, { resolve, reject, watchdog });
            try {
              this.#post(state, { ...message, id });
            } catch (error) {
              clearTimeout(watchdog);
              this.#requests.delete(id);
              reject(
                new SandboxError(
                  `@rlm/sandbox-ses: the value cannot be copied into the sandbox (${describe(error)})`,
                  { cause: error },
                ),
              );
            }
          }),
      ),
    );
  }

  /**
   * A worker answers requests between executions at once, unless code that an earlier execution
   * left running holds it: a promise chain that never yields, the getters of an unhandled
   * rejection's reason, the getters of a variable being copied. A request unanswered for
   * `timeoutMs` (at least {@link minRequestWaitMs}) while no execution runs restarts the worker,
   * as a timeout would.
   */
  #watchRequest(state: WorkerState, id: number): ReturnType<typeof setTimeout> {
    const waitMs = Math.min(Math.max(this.#limits.timeoutMs, minRequestWaitMs), maxTimerDelayMs);
    return setTimeout(() => {
      const request = this.#requests.get(id);
      if (request === undefined || this.#current !== state) return;
      if (this.#execution !== undefined) {
        // The execution's own limits hold the worker meanwhile; wait again after it.
        this.#requests.set(id, { ...request, watchdog: this.#watchRequest(state, id) });
        return;
      }
      const error = new SandboxError(
        `@rlm/sandbox-ses: the sandbox did not answer within ${waitMs} ms (code an earlier execution left running held it) and restarted`,
      );
      replacedWorkerErrors.add(error);
      this.#stop(state, error);
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
    if (this.#current) this.#stop(this.#current, disposedError());
    await Promise.all([...this.#stopping, this.#config.pool.close()]);
  }
}

/**
 * A snapshot entry as the worker sent it, completed: an unchanged one's digest is the one the
 * host sent, a saved one's bytes are joined into one array.
 */
function fromWorker(
  entry: WorkerSnapshotEntry,
  previousDigests: Readonly<Record<string, string>>,
): VariableSnapshotEntry {
  if (entry.state === 'unchanged') {
    const digest = previousDigests[entry.name];
    if (digest === undefined) {
      throw new SandboxError(
        `@rlm/sandbox-ses: the worker found ${entry.name} unchanged, but no digest was sent for it`,
      );
    }
    return { name: entry.name, state: 'unchanged', digest };
  }
  if (entry.state !== 'saved') return entry;
  const { parts } = entry;
  let bytes = parts[0] ?? new Uint8Array(0);
  if (parts.length > 1) {
    bytes = new Uint8Array(parts.reduce((total, part) => total + part.byteLength, 0));
    let offset = 0;
    for (const part of parts) {
      bytes.set(part, offset);
      offset += part.byteLength;
    }
  }
  return { name: entry.name, state: 'saved', bytes, digest: entry.digest };
}

/** The digest of each entry a checkpoint snapshot saved or found unchanged. */
function reportedDigestsOf(entries: readonly VariableSnapshotEntry[]): Map<string, string> {
  const digests = new Map<string, string>();
  for (const entry of entries) if (entry.state !== 'skipped') digests.set(entry.name, entry.digest);
  return digests;
}

/** Whether `digests` holds exactly the names and digests of `reported`. */
function sameDigests(
  digests: Readonly<Record<string, string>>,
  reported: ReadonlyMap<string, string>,
): boolean {
  let count = 0;
  for (const name in digests) {
    if (!Object.hasOwn(digests, name) || reported.get(name) !== digests[name]) return false;
    count += 1;
  }
  return count === reported.size;
}
