/**
 * The worker side of the sandbox: one QuickJS runtime and context in a WebAssembly module of
 * its own, whose memory cannot grow past the sandbox's limit, and the bridge to the host. It
 * runs in the sandbox's worker thread (see `worker.ts`) and is never loaded on the host.
 */
import type { MessagePort } from 'node:worker_threads';
import type { VariableInfo } from '@rlm/core';
import { OutputBuffer, ReachTracker } from '@rlm/core/sandbox-support';
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSContext,
  type QuickJSDeferredPromise,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSWASMModule,
  RELEASE_SYNC,
} from 'quickjs-emscripten';
import { guestKitSource } from './guest-kit.js';
import { rewriteReplCode } from './rewrite-repl-code.js';
import type {
  HostCall,
  HostMessage,
  RestoreRecord,
  SnapshotEntry,
  WorkerMessage,
  WorkerSetup,
  WorkerStart,
} from './worker-protocol.js';

/** Time leftover jobs of ended executions get before the next execution, in milliseconds. */
const leftoverJobsMs = 50;
/** Jobs run between two looks at the execution's promise. */
const jobBatch = 256;
/**
 * Stack QuickJS may use before it throws a stack overflow, in bytes: its frames also take the
 * worker thread's own stack, which must not run out first.
 */
const maxStackBytes = 256 * 1024;
const pageBytes = 64 * 1024;
/** The WebAssembly memory the QuickJS build starts with (it declares no less). */
const initialMemoryBytes = 16 * 1024 * 1024;
/**
 * The least a heap that fails to grow asks for, as a factor of its size: the QuickJS build's
 * `emscripten_resize_heap` tries 1.2x, 1.1x, then 1.05x its size (or the request, if larger),
 * so an allocation fails once the heap is past its limit / 1.05 (12 MB short of 256 MB), well
 * before the memory is full.
 */
const heapGrowthFactor = 1.05;
/** Room for the allocation that failed, on top of {@link heapGrowthFactor}. */
const memorySlackBytes = 4 * 1024 * 1024;
/**
 * What an execution that ran out of memory may throw besides QuickJS's `InternalError: out of
 * memory`: `null` when QuickJS could not make even its error object, or an error that could not
 * be described. Such an error with the heap grown to its limit is an out-of-memory error.
 */
const errorsOfExhaustedHeap = new Set(['Uncaught null', 'Uncaught exception (unprintable)']);
/** A value of `variableState` that stands for any object, for the reach tracker. */
const someObject = {};

type KitFunction =
  | 'installBase'
  | 'installHostFunction'
  | 'installEndingFunction'
  | 'wrapHostFunction'
  | 'isolatedEvaluator'
  | 'installHelper'
  | 'seal'
  | 'prepare'
  | 'result'
  | 'describeError'
  | 'names'
  | 'describe'
  | 'copy'
  | 'assignEncoded'
  | 'assignOne'
  | 'variableStates'
  | 'modelNames'
  | 'snapshotCopy'
  | 'restore';

/** The engine failed in a way that leaves it unusable: the worker ends, the host restarts it. */
class EngineFault extends Error {
  override readonly name = 'EngineFault';
}

/** QuickJS loaded into a memory of the sandbox's size, before the worker knows its sandbox. */
export interface Engine {
  readonly module: QuickJSWASMModule;
  /** The QuickJS heap: a WebAssembly memory that cannot grow past the sandbox's limit. */
  readonly memory: WebAssembly.Memory;
  readonly maximumMemoryBytes: number;
}

/** The running execution, as the worker sees it. */
interface Execution {
  readonly id: number;
  /** The host asked to stop it (a `stop` message; busy code reads `control`). */
  stopped: boolean;
  /** Wakes the loop waiting for a host reply, a timer or a stop. */
  wake: (() => void) | undefined;
  /** A wake is due once the messages that came together are handled. */
  wakeScheduled: boolean;
  /**
   * An ending function (`SUBMIT`) was called: the execution is over for everything but the code
   * still unwinding (see `SandboxOptions.endingFunctions`).
   */
  ended: boolean;
}

/** How an execution's code ended. */
interface Ending {
  readonly error: string | undefined;
  readonly stopped: boolean;
  readonly outOfMemory: boolean;
}

function messageOf(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return 'unknown error';
  }
}

/** One QuickJS sandbox in a worker; see the package README for the guarantees. */
export class GuestSession {
  readonly #port: MessagePort;
  readonly #setup: WorkerSetup;
  readonly #output: OutputBuffer;
  readonly #control: Int32Array;
  readonly #engine: Engine;
  readonly #runtime: QuickJSRuntime;
  readonly #context: QuickJSContext;
  readonly #kit: QuickJSHandle;
  readonly #guestHelperNames: ReadonlySet<string>;
  /** Promises handed to QuickJS and not settled yet; those of an ended execution never are. */
  readonly #deferreds = new Set<QuickJSDeferredPromise>();
  /**
   * Host calls made and not sent yet: sent together whenever the worker stops running QuickJS,
   * and from the interrupt handler while it runs (so a call never waits for busy code to end).
   */
  #outbox: HostCall[] = [];
  /** The pending host calls of the running execution, by id. */
  readonly #calls = new Map<number, QuickJSDeferredPromise>();
  readonly #timers = new Set<ReturnType<typeof setTimeout>>();
  readonly #isolatedContexts: QuickJSContext[] = [];
  /** Which model variables an execution could have changed (for the recovery snapshot). */
  readonly #reach = new ReachTracker();
  readonly #captured = new Set<string>();
  #capturesDynamically = false;
  /** Characters each model variable's last copy took of the snapshot limit. */
  readonly #copiedChars = new Map<string, number>();
  /** Model variables whose value (the same one since) could not be copied when last tried. */
  readonly #lost = new Set<string>();
  #copiedGeneration = 0;
  #execution: Execution | undefined;
  /** Deadline of work done between executions, on `performance.now()`. */
  #deadline = Number.POSITIVE_INFINITY;
  #nextCallId = 1;

  /** Installs the sandbox's globals in a new runtime and context of `engine`. */
  constructor(port: MessagePort, setup: WorkerSetup, engine: Engine) {
    this.#port = port;
    this.#setup = setup;
    this.#engine = engine;
    this.#output = new OutputBuffer(setup.outputBuffer);
    this.#control = new Int32Array(setup.control);
    this.#guestHelperNames = new Set(Object.keys(setup.guestHelpers));
    this.#runtime = engine.module.newRuntime();
    this.#runtime.setMaxStackSize(maxStackBytes);
    this.#runtime.setInterruptHandler(() => this.#shouldInterrupt());
    this.#context = this.#runtime.newContext();
    this.#kit = this.#install();
  }

  /** Loads QuickJS into a WebAssembly memory that cannot grow past `start.memoryBytes`. */
  static async loadEngine(start: WorkerStart): Promise<Engine> {
    const maximumPages = Math.floor(Math.max(initialMemoryBytes, start.memoryBytes) / pageBytes);
    const memory = new WebAssembly.Memory({
      initial: initialMemoryBytes / pageBytes,
      maximum: maximumPages,
    });
    const variant = newVariant(RELEASE_SYNC, { wasmModule: start.wasmModule, wasmMemory: memory });
    const module = await newQuickJSWASMModuleFromVariant(variant);
    return { module, memory, maximumMemoryBytes: maximumPages * pageBytes };
  }

  /** Handles one message from the host. */
  handle(message: HostMessage): void {
    try {
      this.#handle(message);
    } catch (error) {
      this.#fail(error);
    }
  }

  #handle(message: HostMessage): void {
    switch (message.type) {
      case 'restore':
        this.#post({ type: 'ready', unrestored: this.#define(message.variables) });
        return;
      case 'execute':
        void this.#execute(message.id, message.code).catch((error: unknown) => this.#fail(error));
        return;
      case 'stop':
        if (this.#execution?.id === message.id) {
          this.#execution.stopped = true;
          this.#execution.wake?.();
        }
        return;
      case 'list':
        this.#answer(message.id, () => ({
          type: 'listing',
          id: message.id,
          variables: this.#list(),
        }));
        return;
      case 'get':
        this.#answer(message.id, () => {
          const text = this.#kitString('copy', this.#context.newString(message.name));
          const reply = JSON.parse(text) as { value?: unknown; missing?: boolean };
          if (reply.missing) throw new Error(`no variable named ${message.name}`);
          return { type: 'reply', id: message.id, ok: true, text: JSON.stringify(reply.value) };
        });
        return;
      case 'set':
        this.#answer(message.id, () => {
          const failed = this.#define(message.variables);
          if (failed.length > 0) {
            throw new Error(`cannot set ${failed.join(', ')}: use names that are not built-ins`);
          }
          return { type: 'reply', id: message.id, ok: true };
        });
        return;
      case 'host-results':
        for (const { id, reply } of message.results) {
          const deferred = this.#calls.get(id);
          if (deferred === undefined) continue;
          this.#calls.delete(id);
          this.#settle(deferred, reply);
        }
        return;
    }
  }

  /** Ends the worker after a fault of the engine: the host sees it exit and restarts it. */
  #fail(error: unknown): never {
    // Nothing of this worker may run again: its QuickJS module may be broken.
    this.#post({
      type: 'fault',
      reason: messageOf(error),
      outOfMemory: error instanceof EngineFault,
    });
    process.exit(1);
  }

  #post(message: WorkerMessage): void {
    this.#port.postMessage(message);
  }

  /** Runs `compute` and posts what it returns, or its error as a failed `reply`. */
  #answer(id: number, compute: () => WorkerMessage): void {
    let message: WorkerMessage;
    try {
      message = compute();
    } catch (error) {
      if (error instanceof EngineFault) throw error;
      message = { type: 'reply', id, ok: false, message: messageOf(error) };
    }
    this.#post(message);
  }

  // ---- the QuickJS side ----

  /** Sends the host calls made since the last flush, in one message. */
  #flushCalls(): void {
    if (this.#outbox.length === 0) return;
    const calls = this.#outbox;
    this.#outbox = [];
    this.#post({ type: 'calls', calls });
  }

  #shouldInterrupt(): boolean {
    this.#flushCalls();
    const execution = this.#execution;
    if (execution !== undefined && Atomics.load(this.#control, 0) === execution.id) {
      execution.stopped = true;
      return true;
    }
    return performance.now() > this.#deadline;
  }

  /** Runs `body` with work inside QuickJS interrupted after `ms`, then restores the deadline. */
  #withDeadline<T>(ms: number, body: () => T): T {
    const previous = this.#deadline;
    this.#deadline = performance.now() + ms;
    try {
      return body();
    } finally {
      this.#deadline = previous;
    }
  }

  #install(): QuickJSHandle {
    const context = this.#context;
    const write = context.newFunction('write', (text) => {
      if (this.#execution !== undefined && !this.#execution.ended) {
        this.#output.write(`${context.getString(text)}\n`);
      }
    });
    const sleep = context.newFunction('sleep', (msHandle) => {
      const ms = context.getNumber(msHandle);
      return this.#deferredReply((settle) => {
        const timer = setTimeout(
          () => {
            this.#timers.delete(timer);
            settle('{}');
          },
          Math.min(Math.max(ms, 0), 2 ** 31 - 1),
        );
        this.#timers.add(timer);
        return undefined;
      });
    });
    const factory = this.#unwrap(context.evalCode(guestKitSource, 'rlm-kit'));
    const kit = this.#unwrap(context.callFunction(factory, context.undefined, write, sleep));
    for (const handle of [factory, write, sleep]) handle.dispose();
    const setup = this.#setup;
    this.#withDeadline(setup.requestTimeoutMs, () => {
      this.#callKit(kit, 'installBase');
      const ending = new Set(setup.endingFunctionNames);
      for (const name of setup.hostFunctionNames) {
        this.#callKit(
          kit,
          ending.has(name) ? 'installEndingFunction' : 'installHostFunction',
          context.newString(name),
          this.#rawHostFunction(name, ending.has(name)),
        );
      }
      const helperScope: [string, QuickJSHandle][] = [];
      for (const name of setup.internalHostFunctionNames) {
        helperScope.push([
          name,
          this.#unwrapKit(
            kit,
            'wrapHostFunction',
            this.#rawHostFunction(name),
            context.newString(name),
          ),
        ]);
      }
      const isolated = context.newFunction(setup.isolatedEvaluatorName, (source, globals) =>
        this.#evaluateIsolated(context.getString(source), globals),
      );
      helperScope.push([
        setup.isolatedEvaluatorName,
        this.#unwrapKit(kit, 'isolatedEvaluator', isolated),
      ]);
      for (const [name, source] of Object.entries(setup.guestHelpers)) {
        const names = helperScope.map(([scopeName]) => scopeName).join(', ');
        const maker = this.#unwrap(
          context.evalCode(
            `(function (${names}) { 'use strict'; return (${source}\n); })`,
            `rlm-helper-${name}`,
          ),
        );
        const helper = this.#unwrap(
          context.callFunction(
            maker,
            context.undefined,
            ...helperScope.map(([, handle]) => handle),
          ),
        );
        maker.dispose();
        this.#callKit(kit, 'installHelper', context.newString(name), helper);
      }
      for (const [, handle] of helperScope) handle.dispose();
      this.#callKit(kit, 'seal', context.newNumber(setup.maxOutputChars));
    });
    return kit;
  }

  /**
   * A QuickJS function that sends a host call and returns a promise for its JSON reply. One
   * that `ends` the execution (see `SandboxOptions.endingFunctions`) ends it as it is called;
   * after that, no host function is called.
   */
  #rawHostFunction(name: string, ends = false): QuickJSHandle {
    return this.#context.newFunction(name, (argumentsText) => {
      const text = this.#context.getString(argumentsText);
      return this.#deferredReply((settle) => {
        const execution = this.#execution;
        if (execution === undefined) {
          // Code its execution left behind: the host is not called.
          settle(JSON.stringify({ error: `${name} was called after its execution ended` }));
          return undefined;
        }
        if (execution.ended) {
          settle(
            JSON.stringify({
              error: `${name} was not called: SUBMIT or FINAL_VAR ended this code block`,
            }),
          );
          return undefined;
        }
        if (ends) {
          execution.ended = true;
          this.#wakeSoon();
        }
        const id = this.#nextCallId++;
        this.#outbox.push({ id, name, args: text });
        return id;
      });
    });
  }

  /**
   * A promise inside QuickJS that settles with the JSON text `settle` is given, unless the
   * execution that made it has ended by then (its continuation never runs). `start` returns
   * the id of the host call it sent, if any, which `host-result` settles.
   */
  #deferredReply(start: (settle: (reply: string) => void) => number | undefined): QuickJSHandle {
    const deferred = this.#context.newPromise();
    this.#deferreds.add(deferred);
    const execution = this.#execution;
    const callId = start((reply) => {
      // Settled later, from the worker's event loop, and only for the execution that made it.
      queueMicrotask(() => {
        if (execution !== undefined && this.#execution === execution) this.#settle(deferred, reply);
      });
    });
    if (callId !== undefined) this.#calls.set(callId, deferred);
    return deferred.handle;
  }

  #settle(deferred: QuickJSDeferredPromise, reply: string): void {
    this.#deferreds.delete(deferred);
    if (!deferred.alive) return;
    const handle = this.#context.newString(reply);
    deferred.resolve(handle);
    handle.dispose();
    deferred.dispose();
    this.#wakeSoon();
  }

  /**
   * Wakes the running execution once the host's replies that came together are all settled:
   * thousands of calls at once cost one run of the job queue per batch, not one per reply.
   */
  #wakeSoon(): void {
    const execution = this.#execution;
    if (execution === undefined || execution.wakeScheduled) return;
    execution.wakeScheduled = true;
    setImmediate(() => {
      execution.wakeScheduled = false;
      execution.wake?.();
    });
  }

  /**
   * Evaluates `source` in a new context of the same runtime (same heap, same limits) whose
   * global object has the standard built-ins and the own properties of `globals`. Contexts of
   * one runtime share their objects, so the completion value (a function, say) comes back as it
   * is, and so does a thrown value.
   */
  #evaluateIsolated(
    source: string,
    globals: QuickJSHandle,
  ): QuickJSHandle | { error: QuickJSHandle } {
    const isolated = this.#runtime.newContext();
    try {
      // Names the scope lacks read as undefined, as they do in a SES compartment.
      const prepare = this.#unwrapIn(
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
      this.#isolatedContexts.push(isolated);
    }
  }

  #unwrap(result: ReturnType<QuickJSContext['evalCode']>): QuickJSHandle {
    return this.#unwrapIn(this.#context, result);
  }

  #unwrapIn(
    context: QuickJSContext,
    result: ReturnType<QuickJSContext['evalCode']>,
  ): QuickJSHandle {
    if (result.error) {
      const message = describeHandle(context, result.error);
      result.error.dispose();
      throw new Error(message);
    }
    return result.value;
  }

  /** Calls a kit function; the arguments are disposed. */
  #callKit(kit: QuickJSHandle, name: KitFunction, ...args: QuickJSHandle[]): void {
    this.#unwrapKit(kit, name, ...args).dispose();
  }

  #unwrapKit(kit: QuickJSHandle, name: KitFunction, ...args: QuickJSHandle[]): QuickJSHandle {
    const context = this.#context;
    const fn = context.getProp(kit, name);
    try {
      const result = context.callFunction(fn, kit, ...args);
      if (result.error) {
        const message = this.#errorText(result.error);
        result.error.dispose();
        if (/^InternalError: out of memory/.test(message)) throw new EngineFault(message);
        throw new Error(message);
      }
      return result.value;
    } finally {
      fn.dispose();
      for (const arg of args) if (arg.alive) arg.dispose();
    }
  }

  /** Runs a kit function that returns a string, under the request deadline. */
  #kitString(name: KitFunction, ...args: QuickJSHandle[]): string {
    return this.#withDeadline(this.#setup.requestTimeoutMs, () => {
      const handle = this.#unwrapKit(this.#kit, name, ...args);
      const text = this.#context.getString(handle);
      handle.dispose();
      return text;
    });
  }

  #errorText(error: QuickJSHandle): string {
    if (performance.now() > this.#deadline) return 'interrupted: it took too long';
    const fn = this.#context.getProp(this.#kit, 'describeError');
    const result = this.#context.callFunction(fn, this.#kit, error);
    fn.dispose();
    if (result.error) {
      result.error.dispose();
      return 'Uncaught exception (unprintable)';
    }
    const text = this.#context.getString(result.value);
    result.value.dispose();
    return text;
  }

  #namesHandle(names: Iterable<string>): QuickJSHandle {
    const array = this.#context.newArray();
    let index = 0;
    for (const name of names) {
      const handle = this.#context.newString(name);
      this.#context.setProp(array, index++, handle);
      handle.dispose();
    }
    return array;
  }

  // ---- variables ----

  /** Defines variables the host sends; returns the names that could not be defined. */
  #define(records: readonly RestoreRecord[]): string[] {
    const failed: string[] = [];
    const context = this.#context;
    for (const record of records) {
      const readOnly = record.readOnly ? context.true : context.false;
      try {
        if (record.owner === 'model') {
          this.#kitString(
            'restore',
            context.newString(record.name),
            context.newString(record.text ?? ''),
          );
        } else if (record.string !== undefined) {
          this.#kitString(
            'assignOne',
            context.newString(record.name),
            context.newString(record.string),
            readOnly,
          );
        } else {
          this.#kitString(
            'assignEncoded',
            context.newString(record.name),
            context.newString(record.text ?? ''),
            readOnly,
          );
        }
      } catch (error) {
        if (error instanceof EngineFault) throw error;
        failed.push(record.name);
      }
    }
    return failed;
  }

  #list(): VariableInfo[] {
    const names = this.#kitString('names');
    if (names === '') return [];
    const variables: VariableInfo[] = [];
    for (const name of names.split('\n')) {
      let text: string;
      try {
        text = this.#kitString('describe', this.#context.newString(name));
      } catch (error) {
        if (error instanceof EngineFault) throw error;
        text = JSON.stringify({ name, type: 'unknown', size: 0, preview: '[unreadable]' });
      }
      if (text !== '') variables.push(JSON.parse(text) as VariableInfo);
    }
    return variables;
  }

  /** Each name's state (see the kit's `variableStates`), in a map. */
  #variableStates(names: readonly string[]): Map<string, string> {
    const states = new Map<string, string>();
    if (names.length === 0) return states;
    const text = this.#kitString('variableStates', this.#namesHandle(names));
    text.split('\n').forEach((state, index) => {
      states.set(names[index] as string, state);
    });
    return states;
  }

  /** For the reach tracker: an object for a model variable that holds one, else `undefined`. */
  #readerOf(states: Map<string, string>): (name: string) => unknown {
    return (name) => (states.get(name)?.startsWith('object') ? someObject : undefined);
  }

  /**
   * The copies the host needs to restore the model's variables after a restart: values that
   * copy small, within the snapshot limit. A value copied before is not copied again while it
   * is the same value and, for an object, no execution since could have changed it in place.
   */
  #takeSnapshot(): SnapshotEntry[] {
    const { snapshotLimitChars, snapshotTimeoutMs } = this.#setup;
    return this.#withDeadline(snapshotTimeoutMs, () => {
      const names = this.#kitString('modelNames')
        .split('\n')
        .filter((name) => name !== '');
      const states = this.#variableStates(names);
      const since = this.#copiedGeneration;
      this.#copiedGeneration = this.#reach.generation;
      let budget = snapshotLimitChars;
      const entries: SnapshotEntry[] = [];
      for (const name of names) {
        const state = states.get(name) ?? '';
        const unchanged =
          state === 'primitive copied' ||
          (state === 'object copied' && !this.#reach.mayHaveChangedSince(name, since));
        const copiedChars = this.#copiedChars.get(name);
        if (unchanged && copiedChars !== undefined && copiedChars <= budget) {
          budget -= copiedChars;
          entries.push({ name, state: 'unchanged' });
          continue;
        }
        // A value that could not be copied (too large, too slow to copy, or holding a function)
        // is not tried again while it is the same value: copying it costs every execution
        // that names it as much again.
        const sameValue = state.endsWith(' copied');
        if ((sameValue && this.#lost.has(name)) || performance.now() > this.#deadline) {
          entries.push({ name, state: 'lost' });
          continue;
        }
        const text = this.#copyForSnapshot(name, budget);
        this.#copiedChars.delete(name);
        this.#lost.delete(name);
        if (text === undefined) {
          this.#lost.add(name);
          entries.push({ name, state: 'lost' });
          continue;
        }
        budget -= text.length;
        this.#copiedChars.set(name, text.length);
        entries.push({ name, state: 'copied', text });
      }
      for (const name of [...this.#copiedChars.keys(), ...this.#lost]) {
        if (!states.has(name)) {
          this.#copiedChars.delete(name);
          this.#lost.delete(name);
        }
      }
      return entries;
    });
  }

  /** The JSON text of a model variable's value, or `undefined` when it cannot be copied. */
  #copyForSnapshot(name: string, limit: number): string | undefined {
    try {
      const handle = this.#unwrapKit(
        this.#kit,
        'snapshotCopy',
        this.#context.newString(name),
        this.#context.newNumber(limit),
      );
      const text = this.#context.getString(handle);
      handle.dispose();
      return text.length <= limit ? text : undefined;
    } catch (error) {
      if (error instanceof EngineFault) throw error;
      return undefined;
    }
  }

  // ---- execution ----

  async #execute(id: number, code: string): Promise<void> {
    this.#output.reset();
    this.#drainLeftoverJobs();
    let rewrite: ReturnType<typeof rewriteReplCode> | undefined;
    let ending: Ending;
    try {
      rewrite = rewriteReplCode(code);
    } catch (error) {
      ending = { error: `SyntaxError: ${messageOf(error)}`, stopped: false, outOfMemory: false };
    }
    if (rewrite !== undefined) {
      const names = [...rewrite.names];
      const before = this.#variableStates(names);
      const variables = names.filter((name) => before.get(name) !== 'fixed');
      this.#reach.beforeExecution(
        {
          names: variables,
          everything:
            rewrite.reachesDynamically || names.some((name) => this.#guestHelperNames.has(name)),
        },
        this.#readerOf(before),
      );
      ending = await this.#run(id, rewrite);
      for (const name of rewrite.captured) this.#captured.add(name);
      if (rewrite.capturesDynamically) this.#capturesDynamically = true;
      this.#reach.afterExecution(
        { captured: this.#captured, capturesDynamically: this.#capturesDynamically },
        this.#readerOf(this.#variableStates(variables)),
      );
    }
    this.#post({ type: 'ended', id, ...ending! });
    if (ending!.outOfMemory) this.#fail(new EngineFault('out of memory'));
    this.#post({ type: 'executed', id, snapshot: this.#takeSnapshot() });
  }

  async #run(id: number, rewrite: ReturnType<typeof rewriteReplCode>): Promise<Ending> {
    const context = this.#context;
    const execution: Execution = {
      id,
      stopped: false,
      wake: undefined,
      wakeScheduled: false,
      ended: false,
    };
    this.#execution = execution;
    const ended = (error: string | undefined): Ending => ({
      error,
      stopped: execution.stopped,
      // Out of memory, QuickJS may not even make its error object: it throws null. Any other
      // error is the code's own, even if the heap once grew to its limit (it never shrinks).
      outOfMemory:
        error !== undefined &&
        (/^InternalError: out of memory/.test(error) ||
          (errorsOfExhaustedHeap.has(error) && this.#memoryExhausted())),
    });
    let promise: QuickJSHandle | undefined;
    try {
      this.#callKit(this.#kit, 'prepare', this.#namesHandle(rewrite.globals));
      const evaluated = context.evalCode(rewrite.source, 'rlm-repl', { type: 'global' });
      if (evaluated.error) {
        const message =
          execution.stopped || execution.ended ? undefined : this.#errorText(evaluated.error);
        evaluated.error.dispose();
        return ended(message);
      }
      promise = evaluated.value;
      for (;;) {
        while (this.#runtime.hasPendingJob() && !execution.stopped && !execution.ended) {
          const jobs = this.#runtime.executePendingJobs(jobBatch);
          if (jobs.error) jobs.error.dispose();
          if (context.getPromiseState(promise).type !== 'pending') break;
        }
        // SUBMIT ended the execution: as if the code returned there, whatever it did after.
        if (execution.stopped || execution.ended) return ended(undefined);
        const state = context.getPromiseState(promise);
        if (state.type === 'fulfilled') {
          const shown = this.#show(state.value);
          if (shown !== undefined) this.#output.write(shown);
          return ended(undefined);
        }
        if (state.type === 'rejected') {
          const message = this.#errorText(state.error);
          state.error.dispose();
          return ended(message);
        }
        if (this.#runtime.hasPendingJob()) continue;
        this.#flushCalls();
        await new Promise<void>((resolve) => {
          execution.wake = resolve;
        });
        execution.wake = undefined;
      }
    } catch (error) {
      if (error instanceof EngineFault) return ended(error.message);
      if (!(error instanceof Error) || !/^[A-Za-z]*Error: /.test(error.message)) throw error;
      return ended(execution.stopped ? undefined : error.message);
    } finally {
      // Calls the code made but did not await reach the host all the same (a `store()`, say).
      this.#flushCalls();
      this.#execution = undefined;
      for (const deferred of this.#deferreds) if (deferred.alive) deferred.dispose();
      this.#deferreds.clear();
      this.#calls.clear();
      for (const timer of this.#timers) clearTimeout(timer);
      this.#timers.clear();
      for (const isolated of this.#isolatedContexts.splice(0)) {
        if (isolated.alive) isolated.dispose();
      }
      if (promise?.alive) promise.dispose();
    }
  }

  /** Whether the QuickJS heap has grown as far as it can (it never shrinks). */
  #memoryExhausted(): boolean {
    const { memory, maximumMemoryBytes } = this.#engine;
    return memory.buffer.byteLength * heapGrowthFactor + memorySlackBytes > maximumMemoryBytes;
  }

  /** The text of a last expression's value, or `undefined` for none. */
  #show(box: QuickJSHandle): string | undefined {
    const context = this.#context;
    const fn = context.getProp(this.#kit, 'result');
    const result = context.callFunction(fn, this.#kit, box);
    fn.dispose();
    box.dispose();
    if (result.error) {
      result.error.dispose();
      return this.#execution?.stopped ? undefined : '[unprintable value]';
    }
    const text =
      context.typeof(result.value) === 'string' ? context.getString(result.value) : undefined;
    result.value.dispose();
    return text;
  }

  /**
   * Runs what code of ended executions left in the job queue, for a short while and with its
   * output dropped, so that it does not print into the next execution.
   */
  #drainLeftoverJobs(): void {
    this.#withDeadline(leftoverJobsMs, () => {
      while (this.#runtime.hasPendingJob() && performance.now() <= this.#deadline) {
        const jobs = this.#runtime.executePendingJobs(jobBatch);
        if (jobs.error) jobs.error.dispose();
      }
    });
  }
}

function describeHandle(context: QuickJSContext, handle: QuickJSHandle): string {
  const value = context.dump(handle) as { name?: unknown; message?: unknown } | unknown;
  if (value && typeof value === 'object' && 'message' in value) {
    return `${String((value as { name?: unknown }).name ?? 'Error')}: ${String((value as { message: unknown }).message)}`;
  }
  return String(value);
}
