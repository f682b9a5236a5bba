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
import type {
  QuickJSContext,
  QuickJSDeferredPromise,
  QuickJSHandle,
  QuickJSRuntime,
  QuickJSWASMModule,
} from 'quickjs-emscripten';
import { decodeGraph, type EncodedGraph } from './decode-graph.js';
import { encodeGraph } from './encode-graph.js';
import { guestKitSource } from './guest-kit.js';
import { rewriteReplCode } from './rewrite-repl-code.js';

/** Time leftover jobs of ended executions get before the next execution, in milliseconds. */
const leftoverJobsMs = 50;
/** Jobs run between two looks at the execution's promise. */
const jobBatch = 256;
/** Stack QuickJS may use before it throws a stack overflow, in bytes: its frames also take the
 * host thread's own stack, which must not run out first. */
const maxStackBytes = 256 * 1024;

type KitFunction =
  | 'installBase'
  | 'installHostFunction'
  | 'installEndingFunction'
  | 'wrapHostFunction'
  | 'isolatedEvaluator'
  | 'installHelper'
  | 'seal'
  | 'prepare'
  | 'forget'
  | 'result'
  | 'describeError'
  | 'names'
  | 'describe'
  | 'copy'
  | 'assign'
  | 'assignOne';

class OutputBuffer {
  private text = '';
  private dropped = 0;
  constructor(private readonly cap: number) {}

  write(chunk: string): void {
    const room = this.cap - this.text.length;
    if (room >= chunk.length) this.text += chunk;
    else {
      if (room > 0) this.text += chunk.slice(0, room);
      this.dropped += chunk.length - Math.max(room, 0);
    }
  }

  finish(): string {
    const text = this.text.endsWith('\n') ? this.text.slice(0, -1) : this.text;
    return this.dropped === 0
      ? text
      : `${text}\n[output capped: ${this.dropped} characters dropped]`;
  }
}

/**
 * A `Sandbox` on one QuickJS runtime and context in its own WebAssembly module. Model code
 * runs on the calling thread; the interrupt handler stops it at its deadline.
 */
export class QuickJsSandbox implements Sandbox {
  private readonly limits: SandboxLimits;
  private readonly runtime: QuickJSRuntime;
  private readonly context: QuickJSContext;
  private readonly kit: QuickJSHandle;
  private readonly deferreds = new Set<QuickJSDeferredPromise>();
  private readonly isolatedContexts: QuickJSContext[] = [];
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private disposed = false;
  private deadline = Number.POSITIVE_INFINITY;
  private interrupted = false;
  private generation = 0;
  private running = false;
  /** Set when an ending function (SUBMIT) ends the running execution. */
  private ended = false;
  private pendingHostCalls = 0;
  private wake: (() => void) | undefined;
  private output: OutputBuffer | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(module: QuickJSWASMModule, options: SandboxOptions) {
    this.limits = { ...defaultSandboxLimits, ...options.limits };
    this.runtime = module.newRuntime();
    this.runtime.setMemoryLimit(this.limits.memoryMb * 1024 * 1024);
    this.runtime.setMaxStackSize(maxStackBytes);
    this.runtime.setInterruptHandler(() => {
      if (Date.now() > this.deadline) this.interrupted = true;
      return this.interrupted;
    });
    this.context = this.runtime.newContext();
    this.kit = this.install(options);
  }

  private install(options: SandboxOptions): QuickJSHandle {
    const { context } = this;
    const write = context.newFunction('write', (text) => {
      if (!this.ended) this.output?.write(`${context.getString(text)}\n`);
    });
    const sleep = context.newFunction('sleep', (msHandle) => {
      const ms = context.getNumber(msHandle);
      return this.deferredReply(
        () => new Promise((resolve) => this.startTimer(resolve, ms)),
        false,
      );
    });
    const factory = this.unwrap(context.evalCode(guestKitSource, 'rlm-kit'));
    const kit = this.unwrap(context.callFunction(factory, context.undefined, write, sleep));
    for (const handle of [factory, write, sleep]) handle.dispose();
    this.withDeadline(this.limits.timeoutMs, () => {
      this.callKit(kit, 'installBase');
      const ending = new Set(options.endingFunctions ?? []);
      for (const [name, fn] of Object.entries(options.hostFunctions)) {
        const raw = this.rawHostFunction(name, fn, ending.has(name));
        const install = ending.has(name) ? 'installEndingFunction' : 'installHostFunction';
        this.callKit(kit, install, context.newString(name), raw);
      }
      const helperScope: [string, QuickJSHandle][] = [];
      for (const [name, fn] of Object.entries(options.internalHostFunctions ?? {})) {
        const raw = this.rawHostFunction(name, fn);
        helperScope.push([
          name,
          this.unwrapKit(kit, 'wrapHostFunction', raw, context.newString(name)),
        ]);
      }
      const isolated = context.newFunction(isolatedEvaluatorName, (source, globals) =>
        this.evaluateIsolated(context.getString(source), globals),
      );
      helperScope.push([isolatedEvaluatorName, this.unwrapKit(kit, 'isolatedEvaluator', isolated)]);
      for (const [name, source] of Object.entries(options.guestHelpers ?? {})) {
        const names = helperScope.map(([scopeName]) => scopeName).join(', ');
        const maker = this.unwrap(
          context.evalCode(
            `(function (${names}) { 'use strict'; return (${source}\n); })`,
            `rlm-helper-${name}`,
          ),
        );
        const helper = this.unwrap(
          context.callFunction(
            maker,
            context.undefined,
            ...helperScope.map(([, handle]) => handle),
          ),
        );
        maker.dispose();
        this.callKit(kit, 'installHelper', context.newString(name), helper);
      }
      for (const [, handle] of helperScope) handle.dispose();
      this.callKit(kit, 'seal', context.newNumber(this.limits.maxOutputChars));
    });
    return kit;
  }

  private startTimer(resolve: (value: unknown) => void, ms: number): void {
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        resolve(undefined);
      },
      Math.min(Math.max(ms, 0), 2 ** 31 - 1),
    );
    this.timers.add(timer);
  }

  /**
   * A QuickJS function that starts a host call and returns a promise for its JSON reply. One
   * that `ends` the execution (see `SandboxOptions.endingFunctions`) ends it as it is called.
   */
  private rawHostFunction(name: string, fn: HostFunction, ends = false): QuickJSHandle {
    return this.context.newFunction(name, (argumentsText) => {
      const text = this.context.getString(argumentsText);
      if (ends && this.running && !this.ended) {
        this.ended = true;
        this.wake?.();
      } else if (this.ended) {
        return this.deferredReply(async () => {
          throw new Error(`${name} was not called: SUBMIT or FINAL_VAR ended this code block`);
        }, false);
      }
      if (!this.running) {
        // Code its execution left behind: the host is not called.
        return this.deferredReply(async () => {
          throw new Error(`${name} was called after its execution ended`);
        }, false);
      }
      return this.deferredReply(
        async () => fn(...(decodeGraph(JSON.parse(text) as EncodedGraph) as unknown[])),
        true,
      );
    });
  }

  /**
   * A promise inside the sandbox that settles with `{"value": ...}` or `{"error": message}` once
   * `start` settles, unless the execution that made it has ended by then (its continuation
   * never runs).
   */
  private deferredReply(start: () => Promise<unknown>, isHostCall: boolean): QuickJSHandle {
    const deferred = this.context.newPromise();
    this.deferreds.add(deferred);
    const generation = this.generation;
    if (isHostCall) this.pendingHostCalls++;
    const settle = (reply: string) => {
      if (isHostCall && generation === this.generation) this.pendingHostCalls--;
      if (this.disposed || !this.running || generation !== this.generation) return;
      this.deferreds.delete(deferred);
      const handle = this.context.newString(reply);
      deferred.resolve(handle);
      handle.dispose();
      deferred.dispose();
      this.wake?.();
    };
    queueMicrotask(() => {
      let started: Promise<unknown>;
      try {
        started = Promise.resolve(start());
      } catch (error) {
        started = Promise.reject(error);
      }
      started.then(
        (value) => {
          let reply: string;
          try {
            reply = JSON.stringify({ value }) ?? '{}';
          } catch (error) {
            reply = JSON.stringify({
              error: `the host returned data that cannot be copied: ${String(error)}`,
            });
          }
          settle(reply);
        },
        (error: unknown) =>
          settle(JSON.stringify({ error: error instanceof Error ? error.message : String(error) })),
      );
    });
    return deferred.handle;
  }

  /**
   * Evaluates `source` in a new context of the same runtime (same heap, same limits) whose
   * global object has the standard built-ins and the own properties of `globals`. Contexts of
   * one runtime share their objects, so the completion value (a function, say) comes back as it
   * is, and so does a thrown value.
   */
  private evaluateIsolated(
    source: string,
    globals: QuickJSHandle,
  ): QuickJSHandle | { error: QuickJSHandle } {
    const isolated = this.runtime.newContext();
    try {
      // Names the scope lacks read as undefined, as they do in a SES compartment.
      const prepare = this.unwrapIn(
        isolated,
        isolated.evalCode(
          '(function (values) { if (values !== null && typeof values === "object") for (const name of Object.keys(values)) globalThis[name] = values[name]; Object.setPrototypeOf(globalThis, new Proxy(Object.getPrototypeOf(globalThis), { has: () => true })); })',
        ),
      );
      const prepared = isolated.callFunction(prepare, isolated.undefined, globals);
      prepare.dispose();
      if (prepared.error) return { error: prepared.error };
      prepared.value.dispose();
      const result = isolated.evalCode(source, 'rlm-isolated', { type: 'global' });
      return result.error ? { error: result.error } : result.value;
    } finally {
      // Freed once the execution ends: the value handed back must outlive this call.
      this.isolatedContexts.push(isolated);
    }
  }

  private releaseIsolatedContexts(): void {
    for (const isolated of this.isolatedContexts.splice(0)) {
      if (isolated.alive) isolated.dispose();
    }
  }

  private unwrap(result: ReturnType<QuickJSContext['evalCode']>): QuickJSHandle {
    return this.unwrapIn(this.context, result);
  }

  private unwrapIn(context: QuickJSContext, result: ReturnType<QuickJSContext['evalCode']>) {
    if (result.error) {
      const message = describeHandle(context, result.error);
      result.error.dispose();
      throw new SandboxError(`@rlm/sandbox-quickjs: ${message}`);
    }
    return result.value;
  }

  /** Calls a kit function; the arguments are disposed. */
  private callKit(kit: QuickJSHandle, name: KitFunction, ...args: QuickJSHandle[]): void {
    this.unwrapKit(kit, name, ...args).dispose();
  }

  private unwrapKit(
    kit: QuickJSHandle,
    name: KitFunction,
    ...args: QuickJSHandle[]
  ): QuickJSHandle {
    const fn = this.context.getProp(kit, name);
    try {
      const result = this.context.callFunction(fn, kit, ...args);
      if (result.error) {
        const interrupted = this.interrupted;
        const message = interrupted ? 'timed out' : this.errorText(kit, result.error);
        result.error.dispose();
        throw new SandboxError(`@rlm/sandbox-quickjs: ${message}`);
      }
      return result.value;
    } finally {
      fn.dispose();
      for (const arg of args) if (arg.alive) arg.dispose();
    }
  }

  private errorText(kit: QuickJSHandle, error: QuickJSHandle): string {
    const fn = this.context.getProp(kit, 'describeError');
    const result = this.context.callFunction(fn, kit, error);
    fn.dispose();
    if (result.error) {
      result.error.dispose();
      return 'Uncaught exception (unprintable)';
    }
    const text = this.context.getString(result.value);
    result.value.dispose();
    return text;
  }

  private withDeadline<T>(ms: number, body: () => T): T {
    this.deadline = Date.now() + ms;
    this.interrupted = false;
    try {
      return body();
    } finally {
      this.deadline = Number.POSITIVE_INFINITY;
    }
  }

  /** Runs a kit function that returns a string, under a deadline of `timeoutMs`. */
  private kitString(name: KitFunction, ...args: QuickJSHandle[]): string {
    this.assertOpen();
    return this.withDeadline(this.limits.timeoutMs, () => {
      const handle = this.unwrapKit(this.kit, name, ...args);
      const text = this.context.getString(handle);
      handle.dispose();
      return text;
    });
  }

  private assertOpen(): void {
    if (this.disposed) throw new SandboxError('@rlm/sandbox-quickjs: the sandbox is disposed');
  }

  execute(code: string, options: ExecuteOptions = {}): Promise<ExecuteResult> {
    const run = this.queue.then(() => this.executeNow(code, options));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async executeNow(code: string, options: ExecuteOptions): Promise<ExecuteResult> {
    this.assertOpen();
    const started = Date.now();
    const done = (output: string, error?: string): ExecuteResult =>
      error === undefined
        ? { output, durationMs: Date.now() - started }
        : { output, error, durationMs: Date.now() - started };
    if (options.signal?.aborted) return done('', 'Aborted before it started');
    let rewrite: ReturnType<typeof rewriteReplCode>;
    try {
      rewrite = rewriteReplCode(code);
    } catch (error) {
      return done('', `SyntaxError: ${error instanceof Error ? error.message : String(error)}`);
    }
    const timeoutMs = options.timeoutMs ?? this.limits.timeoutMs;
    const wallLimitMs = Math.max(this.limits.hostWaitMs, timeoutMs);
    this.drainLeftoverJobs();
    const output = new OutputBuffer(this.limits.maxOutputChars);
    this.output = output;
    this.generation++;
    this.pendingHostCalls = 0;
    this.running = true;
    this.ended = false;
    let aborted = false;
    const onAbort = () => {
      aborted = true;
      this.wake?.();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    let spentMs = 0;
    const runFor = <T>(body: () => T): T => {
      const before = Date.now();
      try {
        return this.withDeadline(timeoutMs - spentMs, body);
      } finally {
        spentMs += Date.now() - before;
      }
    };
    let promise: QuickJSHandle | undefined;
    try {
      runFor(() => this.callKit(this.kit, 'prepare', this.namesHandle(rewrite.globals)));
      const evaluated = runFor(() =>
        this.context.evalCode(rewrite.source, 'rlm-repl', { type: 'global' }),
      );
      if (evaluated.error) {
        const message = this.interrupted ? undefined : this.errorText(this.kit, evaluated.error);
        evaluated.error.dispose();
        if (this.ended) return done(output.finish());
        return done(output.finish(), message ?? this.timeoutText(timeoutMs));
      }
      promise = evaluated.value;
      for (;;) {
        while (this.runtime.hasPendingJob() && !this.interrupted && !this.ended) {
          const jobs = runFor(() => this.runtime.executePendingJobs(jobBatch));
          if (jobs.error) jobs.error.dispose();
          if (this.context.getPromiseState(promise).type !== 'pending') break;
        }
        // SUBMIT ended the execution: as if the code returned there, whatever it did after.
        if (this.ended) return done(output.finish());
        if (this.interrupted) return done(output.finish(), this.timeoutText(timeoutMs));
        const state = this.context.getPromiseState(promise);
        if (state.type === 'fulfilled') {
          const shown = this.withDeadline(timeoutMs, () => {
            const fn = this.context.getProp(this.kit, 'result');
            const result = this.context.callFunction(fn, this.kit, state.value);
            fn.dispose();
            state.value.dispose();
            if (result.error) {
              result.error.dispose();
              return this.interrupted ? undefined : '[unprintable value]';
            }
            const text =
              this.context.typeof(result.value) === 'string'
                ? this.context.getString(result.value)
                : undefined;
            result.value.dispose();
            return text;
          });
          if (shown !== undefined) output.write(`${shown}\n`);
          return done(output.finish());
        }
        if (state.type === 'rejected') {
          const message = this.withDeadline(timeoutMs, () => this.errorText(this.kit, state.error));
          state.error.dispose();
          if (/out of memory/i.test(message))
            this.callKit(this.kit, 'forget', this.namesHandle(rewrite.globals));
          return done(output.finish(), message);
        }
        if (aborted) return done(output.finish(), 'Aborted');
        if (this.runtime.hasPendingJob()) continue;
        const elapsed = Date.now() - started;
        const hostWaiting = this.pendingHostCalls > 0;
        const waitMs = hostWaiting
          ? wallLimitMs - elapsed
          : Math.min(timeoutMs - spentMs, wallLimitMs - elapsed);
        if (waitMs <= 0) return done(output.finish(), this.timeoutText(timeoutMs));
        const before = Date.now();
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, waitMs);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = undefined;
        if (!hostWaiting) spentMs += Date.now() - before;
        this.assertOpen();
      }
    } catch (error) {
      if (this.disposed)
        throw new SandboxError(
          '@rlm/sandbox-quickjs: the sandbox was disposed during the execution',
          { cause: error },
        );
      return done(
        output.finish(),
        this.interrupted
          ? this.timeoutText(timeoutMs)
          : error instanceof Error
            ? error.message
            : String(error),
      );
    } finally {
      this.releaseIsolatedContexts();
      this.running = false;
      this.output = undefined;
      this.wake = undefined;
      options.signal?.removeEventListener('abort', onAbort);
      if (promise?.alive) promise.dispose();
    }
  }

  /**
   * Runs what code of ended executions left in the job queue, for a short while and with its
   * output dropped, so that it does not print into the next execution.
   */
  private drainLeftoverJobs(): void {
    this.withDeadline(leftoverJobsMs, () => {
      while (this.runtime.hasPendingJob() && !this.interrupted) {
        const jobs = this.runtime.executePendingJobs(jobBatch);
        if (jobs.error) jobs.error.dispose();
      }
    });
  }

  private namesHandle(names: readonly string[]): QuickJSHandle {
    const array = this.context.newArray();
    for (const [index, name] of names.entries()) {
      const handle = this.context.newString(name);
      this.context.setProp(array, index, handle);
      handle.dispose();
    }
    return array;
  }

  private timeoutText(timeoutMs: number): string {
    return `Execution timed out after ${timeoutMs} ms`;
  }

  async listVariables(): Promise<VariableInfo[]> {
    const names = this.kitString('names');
    if (names === '') return [];
    const variables: VariableInfo[] = [];
    for (const name of names.split('\n')) {
      let text = '';
      try {
        text = this.kitString('describe', this.context.newString(name));
      } catch (error) {
        if (this.disposed) throw error;
        text = JSON.stringify({ name, type: 'unknown', size: 0, preview: '[unreadable]' });
      }
      if (text !== '') variables.push(JSON.parse(text) as VariableInfo);
    }
    return variables;
  }

  async getVariable(name: string): Promise<unknown> {
    const text = this.kitString('copy', this.context.newString(name));
    const reply = JSON.parse(text) as { value?: EncodedGraph; missing?: boolean };
    if (reply.missing || reply.value === undefined) {
      throw new SandboxError(`@rlm/sandbox-quickjs: no variable named ${name}`);
    }
    return decodeGraph(reply.value);
  }

  async setVariables(
    values: Readonly<Record<string, unknown>>,
    options: SetVariablesOptions = {},
  ): Promise<void> {
    this.assertOpen();
    // Strings (a context, typically) go in as strings: no JSON text to build and parse.
    const strings = Object.entries(values).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    );
    const rest = Object.fromEntries(
      Object.entries(values).filter(([, value]) => typeof value !== 'string'),
    );
    let text: string;
    try {
      text = encodeGraph(rest);
    } catch (error) {
      throw new SandboxError('@rlm/sandbox-quickjs: variables must be plain data', {
        cause: error,
      });
    }
    const readOnly = () => (options.readOnly ? this.context.true : this.context.false);
    this.withDeadline(this.limits.timeoutMs, () => {
      this.callKit(this.kit, 'assign', this.context.newString(text), readOnly());
      for (const [name, value] of strings) {
        this.callKit(
          this.kit,
          'assignOne',
          this.context.newString(name),
          this.context.newString(value),
          readOnly(),
        );
      }
    });
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.wake?.();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const deferred of this.deferreds) if (deferred.alive) deferred.dispose();
    this.deferreds.clear();
    // The WebAssembly module is this sandbox's alone: dropping it frees the runtime's memory.
    // Freeing the runtime itself would assert that no object is left, which a promise model
    // code left pending can break.
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose();
  }
}

function describeHandle(context: QuickJSContext, handle: QuickJSHandle): string {
  const value = context.dump(handle) as { name?: unknown; message?: unknown } | unknown;
  if (value && typeof value === 'object' && 'message' in value) {
    return `${String((value as { name?: unknown }).name ?? 'Error')}: ${String((value as { message: unknown }).message)}`;
  }
  return String(value);
}
