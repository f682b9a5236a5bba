import { createHash } from 'node:crypto';
import { deserialize, serialize } from 'node:v8';
import { SandboxError } from '../errors/sandbox-error.js';
import { describeVariable } from '../sandbox-support/describe-variable.js';
import {
  defaultSandboxLimits,
  type ExecuteOptions,
  type ExecuteResult,
  type HostFunction,
  type Sandbox,
  type SandboxFactory,
  type SandboxLimits,
  type SandboxOptions,
  type SetVariablesOptions,
  type SnapshotVariablesOptions,
  type VariableInfo,
  type VariableSnapshotEntry,
} from '../sandbox.js';

/** What one scripted execution produced. Every part is optional. */
export interface ScriptedExecution {
  /** Appended to what the handler printed. */
  readonly output?: string;
  /** The execution failed with this message (an error value, as the `Sandbox` contract has it). */
  readonly error?: string;
  /** Variables the code defined or replaced, as if it had assigned them. */
  readonly variables?: Readonly<Record<string, unknown>>;
}

/** The model variables of one scripted sandbox, as a handler sees them. */
export interface ScriptedVariables {
  has(name: string): boolean;
  /** The value itself (not a copy), or `undefined`. */
  get(name: string): unknown;
  /**
   * Defines or replaces a variable, as model code assigning it would. Throws a `TypeError`
   * for a read-only variable or a protected name (a host function, a guest helper, `print`):
   * thrown from a handler, it becomes the execution's error.
   */
  set(name: string, value: unknown): void;
}

/** What a handler gets for one execution. */
export interface ScriptedScope {
  /** The code being "run". */
  readonly code: string;
  /**
   * The host functions (and internal host functions) the sandbox was created with. As in a real
   * sandbox, a rejection reaches the handler as a fresh `Error` carrying only the message.
   */
  readonly host: Readonly<Record<string, HostFunction>>;
  readonly variables: ScriptedVariables;
  /** Writes a line of output, the values joined by spaces (strings as they are, others as JSON). */
  print(...values: unknown[]): void;
  /** Aborts when the execution is aborted or times out: the handler may stop then. */
  readonly signal: AbortSignal;
}

/** What a handler returns: output text, the parts of an execution, or nothing. */
export type ScriptedResult = string | ScriptedExecution | undefined;

/**
 * Runs one piece of code in place of a JavaScript engine. A throw (or rejection) becomes the
 * execution's error, as an uncaught exception in model code would.
 */
export type ScriptedHandler = (
  scope: ScriptedScope,
  // biome-ignore lint/suspicious/noConfusingVoidType: a handler that only prints or sets variables returns nothing
) => ScriptedResult | void | Promise<ScriptedResult | void>;

/**
 * The script of a sandbox: one handler for every execution, or a record from exact code (the
 * text of a model's code block, trimmed) to a fixed result or a handler. Code the record does
 * not have resolves with an error naming it.
 */
export type ScriptedSandboxScript =
  | ScriptedHandler
  | Readonly<Record<string, ScriptedResult | ScriptedHandler>>;

/** Settings of {@link createScriptedSandbox}. */
export interface ScriptedSandboxSettings {
  /**
   * Whether sandboxes implement `snapshotVariables` / `restoreVariables` (with V8's structured
   * serialisation, as real adapters do). `false` makes checkpoints fall back to `getVariable`.
   * Default true.
   */
  readonly snapshots?: boolean;
}

/** One sandbox a {@link ScriptedSandboxFactory} created, open to inspection. */
export interface ScriptedSandbox extends Sandbox {
  /** The options the factory was called with (host functions, guest helpers, limits). */
  readonly options: SandboxOptions;
  /** The code of every execution, in order. */
  readonly executions: readonly string[];
  /** Whether `dispose` was called. */
  readonly disposed: boolean;
}

/** A {@link SandboxFactory} whose sandboxes run scripts; it keeps every sandbox it created. */
export interface ScriptedSandboxFactory extends SandboxFactory {
  /** Every sandbox created so far, in creation order. */
  readonly sandboxes: readonly ScriptedSandbox[];
}

/**
 * Creates an in-memory {@link SandboxFactory} for fast loop tests: no JavaScript engine, no
 * worker. Each `execute(code)` runs the script's handler for that code, which may print, call
 * the host functions (`llm_query`, `SUBMIT`, `FINAL_VAR`, `store`, ...) so the host bridge is
 * exercised for real, and read or set variables. Variables live in memory, so
 * `listVariables`, `getVariable`, `setVariables` and (unless disabled) checkpoint snapshots
 * behave as the `Sandbox` contract says. Executions honour `timeoutMs` (time spent awaiting
 * host functions does not count, up to `hostWaitMs`) and the abort signal; errors are values.
 *
 * @example
 * const sandbox = createScriptedSandbox({
 *   'const total = 6 * 7': ({ variables }) => variables.set('total', 42),
 *   'SUBMIT(total)': async ({ host, variables }) => {
 *     await host.SUBMIT(variables.get('total'));
 *   },
 * });
 * const rlm = createRLM({ model: createScriptedModel([...]), sandbox });
 */
export function createScriptedSandbox(
  script: ScriptedSandboxScript,
  settings: ScriptedSandboxSettings = {},
): ScriptedSandboxFactory {
  const sandboxes: ScriptedSandbox[] = [];
  const factory = async (options: SandboxOptions): Promise<Sandbox> => {
    const sandbox = new InMemorySandbox(script, options, settings.snapshots ?? true);
    sandboxes.push(sandbox);
    return sandbox;
  };
  return Object.assign(factory, { sandboxes });
}

/** Names model code can never reassign, besides host functions and guest helpers. */
const fixedNames = ['print', 'console'];

class InMemorySandbox implements ScriptedSandbox {
  readonly options: SandboxOptions;
  readonly executions: string[] = [];
  readonly #script: ScriptedSandboxScript;
  /** The record's entries by trimmed code, when the script is a record. */
  readonly #entries: ReadonlyMap<string, ScriptedResult | ScriptedHandler> | undefined;
  readonly #limits: SandboxLimits;
  readonly #values = new Map<string, unknown>();
  readonly #readOnly = new Set<string>();
  readonly #protected: ReadonlySet<string>;
  readonly #host: Readonly<Record<string, HostFunction>>;
  readonly #ending: ReadonlySet<string>;
  #disposed = false;

  constructor(script: ScriptedSandboxScript, options: SandboxOptions, snapshots: boolean) {
    this.#script = script;
    this.#entries =
      typeof script === 'function'
        ? undefined
        : new Map(Object.entries(script).map(([code, entry]) => [code.trim(), entry]));
    this.options = options;
    this.#limits = { ...defaultSandboxLimits, ...options.limits };
    this.#protected = new Set([
      ...fixedNames,
      ...Object.keys(options.hostFunctions),
      ...Object.keys(options.guestHelpers ?? {}),
    ]);
    this.#host = { ...options.hostFunctions, ...options.internalHostFunctions };
    this.#ending = new Set(options.endingFunctions ?? []);
    if (!snapshots) {
      // Own properties shadow the class's methods: the sandbox then has none.
      Object.assign(this, { snapshotVariables: undefined, restoreVariables: undefined });
    }
  }

  get disposed(): boolean {
    return this.#disposed;
  }

  async execute(code: string, options: ExecuteOptions = {}): Promise<ExecuteResult> {
    this.#assertOpen();
    this.executions.push(code);
    const startedAt = Date.now();
    const lines: string[] = [];
    const stop = new AbortController();
    const ending = endingOf(stop);
    const clock = new ExecutionClock(options.timeoutMs ?? this.#limits.timeoutMs, {
      hostWaitMs: this.#limits.hostWaitMs,
      onExpired: (message) => stop.abort(new Error(message)),
    });
    const onAbort = () => stop.abort(new Error('AbortError: the execution was aborted'));
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    const scope: ScriptedScope = {
      code,
      host: this.#bridge(clock, ending),
      variables: this.#variablesView(),
      print: (...values) => {
        if (!ending.ended) lines.push(values.map(printable).join(' '));
      },
      signal: stop.signal,
    };
    const stopped = new Promise<never>((_, reject) => {
      if (stop.signal.aborted) reject(stop.signal.reason);
      stop.signal.addEventListener('abort', () => reject(stop.signal.reason), { once: true });
    });
    let result: ScriptedResult;
    let error: string | undefined;
    try {
      result = await Promise.race([this.#run(scope), stopped, ending.reached]);
    } catch (thrown) {
      if (!ending.ended) error = describeError(thrown);
    } finally {
      clock.stop();
      options.signal?.removeEventListener('abort', onAbort);
    }
    const parts: ScriptedExecution =
      ending.ended || result === undefined
        ? {}
        : typeof result === 'string'
          ? { output: result }
          : result;
    if (error === undefined && parts.variables) {
      try {
        for (const [name, value] of Object.entries(parts.variables))
          scope.variables.set(name, value);
      } catch (thrown) {
        error = describeError(thrown);
      }
    }
    if (parts.output !== undefined) lines.push(parts.output);
    error ??= parts.error;
    return {
      output: lines.join('\n'),
      durationMs: Date.now() - startedAt,
      ...(error === undefined ? {} : { error }),
    };
  }

  async #run(scope: ScriptedScope): Promise<ScriptedResult> {
    const script = this.#script;
    if (typeof script === 'function') return (await script(scope)) ?? undefined;
    const key = scope.code.trim();
    const entry = this.#entries?.get(key);
    if (entry === undefined && !this.#entries?.has(key)) {
      throw new Error(`scripted sandbox: no script for this code: ${JSON.stringify(key)}`);
    }
    return typeof entry === 'function' ? ((await entry(scope)) ?? undefined) : entry;
  }

  /**
   * Host functions as model code gets them: a rejection crosses as a fresh `Error`. An ending
   * function ends the execution at its call: it never settles for the handler, which stops
   * there if it awaits it; host calls after it reject without reaching the host.
   */
  #bridge(clock: ExecutionClock, ending: Ending): Record<string, HostFunction> {
    return Object.fromEntries(
      Object.entries(this.#host).map(([name, hostFunction]) => [
        name,
        async (...args: unknown[]) => {
          if (ending.ended) throw new Error(`${name} was not called: the execution has ended`);
          if (this.#ending.has(name)) {
            hostFunction(...args).catch(() => {});
            ending.end();
            return new Promise<never>(() => {});
          }
          clock.hostCallStarted();
          try {
            return await hostFunction(...args);
          } catch (error) {
            throw new Error(error instanceof Error ? error.message : String(error));
          } finally {
            clock.hostCallEnded();
          }
        },
      ]),
    );
  }

  #variablesView(): ScriptedVariables {
    return {
      has: (name) => this.#values.has(name),
      get: (name) => this.#values.get(name),
      set: (name, value) => {
        if (this.#protected.has(name) || this.#readOnly.has(name)) {
          throw new TypeError(`Assignment to constant variable ${name}.`);
        }
        this.#values.set(name, value);
      },
    };
  }

  async listVariables(): Promise<VariableInfo[]> {
    this.#assertOpen();
    return [...this.#values.entries()]
      .map(([name, value]) => describeVariable(name, value, previewOf))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async getVariable(name: string): Promise<unknown> {
    this.#assertOpen();
    if (!this.#values.has(name)) {
      throw new SandboxError(`scripted sandbox: variable ${name} is not defined`);
    }
    try {
      return structuredClone(this.#values.get(name));
    } catch (error) {
      throw new SandboxError(`scripted sandbox: variable ${name} cannot be copied`, {
        cause: error,
      });
    }
  }

  async setVariables(
    values: Readonly<Record<string, unknown>>,
    options: SetVariablesOptions = {},
  ): Promise<void> {
    this.#assertOpen();
    for (const [name, value] of Object.entries(values)) {
      if (this.#protected.has(name)) {
        throw new SandboxError(`scripted sandbox: ${name} is a protected name`);
      }
      this.#values.set(name, structuredClone(value));
      if (options.readOnly) this.#readOnly.add(name);
    }
  }

  async snapshotVariables(options: SnapshotVariablesOptions): Promise<VariableSnapshotEntry[]> {
    this.#assertOpen();
    const excluded = new Set(options.exclude ?? []);
    const entries: VariableSnapshotEntry[] = [];
    for (const name of [...this.#values.keys()].sort()) {
      if (excluded.has(name)) continue;
      const value = this.#values.get(name);
      if (typeof value === 'function') {
        entries.push({ name, state: 'skipped', reason: 'a function', tooLarge: false });
        continue;
      }
      let bytes: Uint8Array;
      try {
        bytes = new Uint8Array(serialize(value));
      } catch {
        entries.push({ name, state: 'skipped', reason: 'a class instance', tooLarge: false });
        continue;
      }
      if (bytes.byteLength > options.maxBytesPerVariable) {
        entries.push({ name, state: 'skipped', reason: 'too large', tooLarge: true });
        continue;
      }
      const digest = createHash('sha256').update(bytes).digest('hex');
      entries.push(
        options.previousDigests?.[name] === digest
          ? { name, state: 'unchanged', digest }
          : { name, state: 'saved', bytes, digest },
      );
    }
    return entries;
  }

  async restoreVariables(bytesByName: Readonly<Record<string, Uint8Array>>): Promise<string[]> {
    this.#assertOpen();
    const failed: string[] = [];
    for (const [name, bytes] of Object.entries(bytesByName)) {
      try {
        this.#variablesView().set(name, deserialize(bytes));
      } catch {
        failed.push(name);
      }
    }
    return failed;
  }

  async dispose(): Promise<void> {
    this.#disposed = true;
    this.#values.clear();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }

  #assertOpen(): void {
    if (this.#disposed) throw new SandboxError('scripted sandbox: this sandbox was disposed');
  }
}

/** Whether an ending function ended the execution, and a promise that resolves when it does. */
interface Ending {
  readonly ended: boolean;
  readonly reached: Promise<undefined>;
  end(): void;
}

function endingOf(stop: AbortController): Ending {
  let end!: () => void;
  const reached = new Promise<undefined>((resolve) => {
    end = () => resolve(undefined);
  });
  const ending = {
    ended: false,
    reached,
    end: () => {
      ending.ended = true;
      end();
      stop.abort(new Error('the execution ended'));
    },
  };
  return ending;
}

/**
 * The time limits of one execution: `timeoutMs` of the code's own time (paused while a host
 * call is pending) and `hostWaitMs` of wall time in all.
 */
class ExecutionClock {
  readonly #onExpired: (message: string) => void;
  #remainingMs: number;
  #runningSince = Date.now();
  #pending = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #wallTimer: ReturnType<typeof setTimeout>;

  constructor(
    timeoutMs: number,
    options: { hostWaitMs: number; onExpired: (message: string) => void },
  ) {
    this.#onExpired = options.onExpired;
    this.#remainingMs = timeoutMs;
    this.#arm();
    this.#wallTimer = setTimeout(
      () => this.#onExpired(`TimeoutError: host calls took longer than ${options.hostWaitMs} ms`),
      Math.max(timeoutMs, options.hostWaitMs),
    );
  }

  hostCallStarted(): void {
    this.#pending += 1;
    if (this.#pending > 1) return;
    clearTimeout(this.#timer);
    this.#remainingMs -= Date.now() - this.#runningSince;
  }

  hostCallEnded(): void {
    this.#pending -= 1;
    if (this.#pending === 0) this.#arm();
  }

  stop(): void {
    clearTimeout(this.#timer);
    clearTimeout(this.#wallTimer);
  }

  #arm(): void {
    this.#runningSince = Date.now();
    this.#timer = setTimeout(
      () => this.#onExpired('TimeoutError: the execution timed out'),
      Math.max(0, this.#remainingMs),
    );
  }
}

function printable(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function describeError(error: unknown): string {
  if (error instanceof Error) {
    return /^\w*Error\b/.test(error.message) ? error.message : `${error.name}: ${error.message}`;
  }
  return `Error: ${String(error)}`;
}

/** A listing's preview of `value`: strings quoted, else JSON, cut to `maxChars`. */
function previewOf(value: unknown, maxChars: number): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : printable(value);
  return text.length > maxChars ? `${text.slice(0, maxChars - 3)}...` : text;
}
