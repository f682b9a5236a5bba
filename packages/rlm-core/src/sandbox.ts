/**
 * The narrow sandbox interface: one persistent JavaScript environment in which model code
 * runs. Adapters (for example `@rlm/sandbox-ses`) implement it and pass the conformance suite
 * exported from `@rlm/core/testing`.
 */

/**
 * An async function the host exposes to model code. It receives plain, structured-clonable
 * arguments and must resolve to plain, structured-clonable data. When it rejects, the
 * sandbox hands model code a fresh `Error` carrying only the message: no host object ever
 * crosses into the sandbox.
 */
export type HostFunction = (...args: unknown[]) => Promise<unknown>;

/** Resource limits for one sandbox. */
export interface SandboxLimits {
  /**
   * Default limit of one `execute`, in milliseconds, on the code's own running time: wall time
   * while none of its host calls is pending, and the environment's busy time while one is. So
   * time spent idle awaiting host functions (model calls) does not count, and computing while a
   * call is pending does.
   */
  readonly timeoutMs: number;
  /**
   * Longest one `execute` may take in all (wall time) while it awaits host functions, in
   * milliseconds; never less than `timeoutMs`. A host call that never settles is cut off here.
   */
  readonly hostWaitMs: number;
  /** Heap limit for model code, in megabytes. */
  readonly memoryMb: number;
  /** Output kept per `execute`, in characters; the rest is dropped and counted. */
  readonly maxOutputChars: number;
}

export const defaultSandboxLimits: SandboxLimits = {
  timeoutMs: 30_000,
  hostWaitMs: 600_000,
  memoryMb: 1024,
  maxOutputChars: 1_000_000,
};

/**
 * The name under which guest helpers see the sandbox's isolated evaluator (see
 * `SandboxOptions.guestHelpers`).
 */
export const isolatedEvaluatorName = 'evaluateIsolated';

export interface SandboxOptions {
  /**
   * Host functions, each installed as a global of the same name that model code cannot
   * overwrite. Calls may run concurrently (`Promise.all`).
   */
  readonly hostFunctions: Readonly<Record<string, HostFunction>>;
  /**
   * Host functions only guest helpers can call: each name is in scope in the source of every
   * guest helper when it is installed, and nowhere else. They are never globals: model code
   * naming one gets a `ReferenceError`, `globalThis[name]` is `undefined`, and no evaluator
   * (`eval`, `Function`) reaches them. A helper that captures one at install holds the only
   * reference inside the sandbox. Names must not clash with `hostFunctions` or `guestHelpers`.
   */
  readonly internalHostFunctions?: Readonly<Record<string, HostFunction>>;
  /**
   * Names among `hostFunctions` whose call ends the execution that makes it, as if its code
   * returned there (the loop's `SUBMIT` and `FINAL_VAR`). A call whose arguments cannot leave
   * the sandbox throws there like any host call, and the code goes on. Otherwise the call goes
   * to the host, and then nothing of the code after it has an effect, even when the code catches
   * what the sandbox throws to unwind it: what it writes is dropped, the host functions it calls
   * reject without reaching the host, its timers do not run, and the value of its last
   * expression is not shown. The execution resolves with the output written before the call and
   * no error (whatever the code threw after it), at the latest once the code returns.
   */
  readonly endingFunctions?: readonly string[];
  /**
   * Functions written in JavaScript that run inside the sandbox, as model code does, each
   * installed as a protected global in every fresh environment (at start and after any
   * restart): name -> the source of a function expression, e.g.
   * `{ twice: '(x) => x * 2' }`. They may call host functions. Names must not clash with
   * `hostFunctions`.
   *
   * Besides the globals, a helper's source sees, as names in scope at install only:
   * - every `internalHostFunctions` entry;
   * - `evaluateIsolated(source, globals)` ({@link isolatedEvaluatorName}): evaluates the script `source` in a new global
   *   scope that has the standard built-ins (with the sandbox's clock, random source and timers)
   *   and the own properties of `globals`, and nothing else of the sandbox (no host function,
   *   guest helper, variable or global model code made), and returns its completion value.
   *   Each call gets a new scope, under the limits of the execution that runs it.
   */
  readonly guestHelpers?: Readonly<Record<string, string>>;
  /** Defaults to {@link defaultSandboxLimits}. */
  readonly limits?: Partial<SandboxLimits>;
}

/** Creates one sandbox. Resolves once the environment is ready to execute. */
export type SandboxFactory = (options: SandboxOptions) => Promise<Sandbox>;

export interface ExecuteOptions {
  /** Overrides the sandbox's `timeoutMs` for this call. */
  readonly timeoutMs?: number;
  /** Aborting stops the running code and resolves with an error result. */
  readonly signal?: AbortSignal;
}

export interface ExecuteResult {
  /**
   * Everything `print`/`console.*` wrote, in order, followed by the value of the last
   * expression when it is not `undefined`.
   */
  readonly output: string;
  /**
   * Set when the code threw, timed out, ran out of memory, or was aborted: one readable
   * line (plus a short stack if any). Execution errors are values, never rejections.
   */
  readonly error?: string;
  /** Wall-clock time of the execution, in milliseconds. */
  readonly durationMs: number;
}

/** Metadata about one model-visible variable. */
export interface VariableInfo {
  readonly name: string;
  /** `string`, `number`, `array`, `object`, `function`, ... */
  readonly type: string;
  /** Approximate size: string length, array length, or key count. */
  readonly size: number;
  /** A short preview (at most ~100 characters). */
  readonly preview: string;
}

export interface SetVariablesOptions {
  /** When true, model code cannot reassign these names (used for `context`, `history`). */
  readonly readOnly?: boolean;
}

/** Options of {@link Sandbox.snapshotVariables}. */
export interface SnapshotVariablesOptions {
  /** Names not to snapshot (the host's own variables: the context, the history). */
  readonly exclude?: readonly string[];
  /**
   * Most bytes one variable's serialised form may take. A larger variable is skipped (reported
   * with `tooLarge: true`), never half-written. Sized before anything is serialised.
   */
  readonly maxBytesPerVariable: number;
  /**
   * Each variable's digest in the last snapshot the caller kept. A variable whose digest is the
   * same is reported `unchanged`, without its bytes; one the sandbox knows has not changed (an
   * identical primitive) is not even serialised again.
   */
  readonly previousDigests?: Readonly<Record<string, string>>;
}

/** One variable in a {@link Sandbox.snapshotVariables} answer. */
export type VariableSnapshotEntry =
  /** `bytes`: the structured clone in V8's serialization format; `digest`: SHA-256 hex of them. */
  | {
      readonly name: string;
      readonly state: 'saved';
      readonly bytes: Uint8Array;
      readonly digest: string;
    }
  /** Same digest as in `previousDigests`: the caller's earlier bytes still hold. */
  | { readonly name: string; readonly state: 'unchanged'; readonly digest: string }
  /** Not saved: `reason` says why in words (`a function`, `a class instance`, `too large`). */
  | {
      readonly name: string;
      readonly state: 'skipped';
      readonly reason: string;
      readonly tooLarge: boolean;
    };

export interface Sandbox extends AsyncDisposable {
  /**
   * Runs model code. Top-level declarations persist to later calls, as in a REPL. Never
   * rejects for faults of the code itself; rejects only when the sandbox is disposed.
   */
  execute(code: string, options?: ExecuteOptions): Promise<ExecuteResult>;
  /** Model-visible variables (host functions excluded), sorted by name. */
  listVariables(): Promise<VariableInfo[]>;
  /**
   * The structured clone of a variable's value. Rejects with `SandboxError` when the name is
   * not defined or the value cannot be cloned (functions, for example).
   */
  getVariable(name: string): Promise<unknown>;
  /**
   * Optional. True when `setVariables` takes `Utf8Text` values itself, defining the string each
   * stands for from its bytes (without the host decoding them); other sandboxes get the string.
   */
  readonly acceptsUtf8Text?: boolean;
  /** Defines or replaces globals from plain data. */
  setVariables(
    values: Readonly<Record<string, unknown>>,
    options?: SetVariablesOptions,
  ): Promise<void>;
  /**
   * Optional. Snapshots every model variable in one batch, serialised inside the sandbox with
   * structured clone, so Map, Set, Date, RegExp, typed arrays, ArrayBuffer, BigInt, cycles,
   * sparse arrays, -0 and NaN survive. Functions and class instances are skipped, with the
   * reason. Sorted by name. Sandboxes without it are checkpointed through `getVariable`
   * (JSON data only).
   *
   * The snapshot is of the variables as they are when it is asked for. A call made after it
   * that may change them (`execute`, `setVariables`, `restoreVariables`) either waits for it or
   * preempts it: the snapshot then rejects with `SnapshotPreemptedError`, and the sandbox may
   * keep what it made for the next snapshot. So a caller need not wait for a snapshot before
   * executing again.
   */
  snapshotVariables?(options: SnapshotVariablesOptions): Promise<VariableSnapshotEntry[]>;
  /**
   * Optional, with `snapshotVariables`: defines model variables from bytes it produced,
   * deserialised inside the sandbox. Resolves with the names that could not be restored.
   */
  restoreVariables?(bytesByName: Readonly<Record<string, Uint8Array>>): Promise<string[]>;
  /** Releases the environment. Idempotent; later calls reject with `SandboxError`. */
  dispose(): Promise<void>;
}
