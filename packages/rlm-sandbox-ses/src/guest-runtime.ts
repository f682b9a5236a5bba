/**
 * The worker side of the sandbox: one SES Compartment, the variables model code defines, and
 * the bridge to the host. It runs after `lockdown()` (see `worker.ts`) and is never loaded on
 * the host.
 */
import { getHeapStatistics } from 'node:v8';
import type { MessagePort } from 'node:worker_threads';
import type { VariableInfo } from '@rlm/core';
import { isPrimitive, OutputBuffer, ReachTracker } from '@rlm/core/sandbox-support';
import { CheckpointVariables, type SnapshotPacing } from './checkpoint-variables.js';
import { copyForTransfer } from './copy-for-transfer.js';
import { formatValue } from './format-value.js';
import { isIdentifierName } from './is-identifier-name.js';
import { loadAcorn } from './load-acorn.js';
import { PendingTexts } from './pending-texts.js';
import { deserializeCheckpointBytes, readCheckpointBytes } from './serialize-in-pieces.js';
import { ownsBuffer, serializeValue } from './serialize-value.js';
import { TransferTooLargeError } from './transfer-too-large-error.js';
import {
  evalName,
  importName,
  kitName,
  type NameKind,
  regExpName,
  replSourceUrl,
  rewriteEvalCode,
  rewriteReplCode,
  wrapperName,
} from './rewrite-code.js';
import type {
  HostMessage,
  SnapshotEntry,
  Transferred,
  VariableRecord,
  WorkerMessage,
  WorkerSetup,
} from './worker-protocol.js';

/** One variable's storage, shared by every execution that uses it. */
interface Cell {
  v: unknown;
}

interface VariableMeta {
  /** `fixed`: a host function, `print` or `console`; never listed, never writable. */
  owner: 'model' | 'host' | 'fixed';
  readOnly: boolean;
  isConst: boolean;
  /** The value the host set last, to skip snapshotting what the host can restore itself. */
  hostValue?: unknown;
}

/** Attenuated V8 call sites, as SES hands them to `Error.prepareStackTrace`. */
interface CallSite {
  getFunctionName(): string | null;
  getLineNumber(): number | null;
  getScriptNameOrSourceURL(): string | null;
}

const maxTimerDelay = 2 ** 31 - 1;
const maxStackFrames = 5;

const callSites = new WeakMap<object, CallSite[]>();

/**
 * Values that copy to at most this many bytes (by {@link copyForTransfer}'s count; a clone of
 * wide strings takes up to twice) cross as they are, without a serializer round trip of their
 * own; larger ones cross as bytes the host measures before decoding.
 */
const directTransferBytes = 64 * 1024;
/** Messages that may change the variables: they wait for a restore under way. */
const changesVariables = new Set<HostMessage['type']>([
  'restore',
  'execute',
  'set',
  'snapshot-variables',
  'restore-variables',
]);
/**
 * Messages that read no variable's value: texts the host set as bytes may stay undecoded while
 * they come (a listing shows a pending text without decoding it).
 */
const readsNoVariable = new Set<HostMessage['type']>(['list', 'probe', 'set', 'restore']);
/** How long a checkpoint snapshot or restore works before letting waiting messages in. */
const snapshotSliceMs = 2;
/** How often a checkpoint snapshot or restore under way tells the host it is alive. */
const snapshotProgressMs = 250;

/** A value {@link GuestRuntime} made ready to leave the worker, and the bytes it counts for. */
interface Packed {
  readonly transferred: Transferred;
  readonly size: number;
}

/**
 * The worker's ArrayBuffer memory, which V8's heap limit does not count: V8's external memory,
 * which counts every ArrayBuffer and typed array guest code can make (it has no
 * SharedArrayBuffer, Atomics or WebAssembly), read in ~1 µs where `process.memoryUsage()`
 * reads `/proc` for ~20 µs on every execution. Node before 20.13 lacks it.
 */
function arrayBufferBytes(): number {
  const { external_memory: external } = getHeapStatistics() as { external_memory?: number };
  return external ?? process.memoryUsage().arrayBuffers;
}

function messageOf(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return 'unknown error';
  }
}

/** Replaces the rewriter's names in engine messages with the names the code used. */
function cleanMessage(message: string): string {
  return message
    .replace(/\(0\s*,\s*__rlm_c_([\p{ID_Continue}$\u200c\u200d]+)\.v\)/gu, '$1')
    .replace(/__rlm_c_([\p{ID_Continue}$\u200c\u200d]+)\.v/gu, '$1')
    .replace(/\(?__rlm\.ref\((?:"([^"]*)"|\.\.\.)\)\)?/g, (_, name: string | undefined) =>
      name === undefined ? 'value' : name,
    )
    .replaceAll(evalName, 'eval')
    .replaceAll(importName, 'import');
}

export class GuestRuntime {
  readonly #port: MessagePort;
  readonly #output: OutputBuffer;
  readonly #snapshotLimitBytes: number;
  readonly #transferLimitBytes: number;
  readonly #compartment: Compartment;
  readonly #global: Record<PropertyKey, unknown>;
  readonly #lexicals: object;
  readonly #baseline: Set<string>;
  readonly #cells = new Map<string, Cell>();
  readonly #meta = new Map<string, VariableMeta>();
  readonly #scope = {
    kindOf: (name: string) => this.#kindOf(name),
    isCaptured: (name: string) => this.#capturesDynamically || this.#captured.has(name),
  };
  /** Guest helpers run code the REPL rewrite does not see: a call may reach any variable. */
  readonly #guestHelperNames: ReadonlySet<string>;
  /** Checkpoint snapshots of the model's variables (see `Sandbox.snapshotVariables`). */
  readonly #reach = new ReachTracker();
  readonly #checkpoints = new CheckpointVariables(this.#reach);
  readonly #readVariable = (name: string): unknown => this.#cells.get(name)?.v;
  /** Texts the host set as bytes, decoded when first read or once the worker idles. */
  readonly #pendingTexts = new PendingTexts();
  /** Variables that functions made by earlier executions name (see `rewriteReplCode`). */
  readonly #captured = new Set<string>();
  #capturesDynamically = false;
  /** Pending host calls of the running execution, by id. */
  readonly #calls = new Map<
    number,
    { resolve(value: unknown): void; reject(error: Error): void; readonly bytes: number }
  >();
  /** Bytes of the arguments of the pending host calls: they share the transfer limit. */
  #callBytes = 0;
  readonly #timers = new Map<number, ReturnType<typeof setTimeout>>();
  /**
   * Values last copied to the host for a restart, by variable, with the bytes they took of the
   * snapshot limit (0 for primitives the host set).
   */
  readonly #copied = new Map<string, { readonly value: unknown; readonly bytes: number }>();
  /** The reach generation the last recovery snapshot saw. */
  #copiedGeneration = 0;
  /** The descriptions the last `listing` sent, by name. */
  readonly #listingSent = new Map<string, VariableInfo>();
  /** Listing entries as last described, with the value and the reach generation they saw. */
  readonly #listed = new Map<
    string,
    { readonly value: unknown; readonly generation: number; readonly info: VariableInfo }
  >();
  #nextId = 1;
  /** Whether checkpoint bytes are being restored (see `#restoreVariables`). */
  #restoring = false;
  /** Messages that may change the variables, waiting for the restore under way. */
  #waitingForRestore: HostMessage[] = [];
  /** Checkpoint snapshots asked for: the first is being taken. */
  #checkpointRequests: Extract<HostMessage, { type: 'snapshot-variables' }>[] = [];
  #executing = false;
  /**
   * Set once an ending function (`SUBMIT`) is called: the execution is over for everything but
   * the code still unwinding (see `SandboxOptions.endingFunctions`).
   */
  #ended = false;
  /** Resolves when an ending function ends the running execution. */
  #endReached: Promise<undefined> = Promise.resolve(undefined);
  #reachEnd: () => void = () => {};
  /** Lines of the code running now: frames past them are the wrapper's. */
  #codeLines = 0;

  /** Call after `lockdown()`, once per worker. */
  constructor(port: MessagePort, setup: WorkerSetup) {
    // Guest code sees an empty `stack` (SES's safe error taming); the runtime keeps the call
    // sites to report line numbers.
    (Error as unknown as { prepareStackTrace: unknown }).prepareStackTrace = (
      error: object,
      sites: CallSite[],
    ) => {
      callSites.set(error, sites);
      return '';
    };
    this.#port = port;
    this.#output = new OutputBuffer(setup.outputBuffer);
    this.#snapshotLimitBytes = setup.snapshotLimitBytes;
    this.#transferLimitBytes = setup.transferLimitBytes;
    this.#compartment = new Compartment({ __options__: true, name: 'rlm-sandbox' });
    const global = this.#compartment.globalThis;
    this.#global = global;
    // Powers SES leaves out of compartments by default, given back on purpose: the clock and
    // a (non-secure) random source of the start compartment, and timers bounded to one
    // execution.
    Object.assign(global, {
      Date,
      Math,
      setTimeout: harden(this.#setTimeout),
      clearTimeout: harden(this.#clearTimeout),
    });
    for (const name of ['Compartment', 'lockdown']) Reflect.deleteProperty(global, name);

    const sandboxEval = this.#makeEval();
    const dynamicImport = harden(
      (): Promise<never> =>
        Promise.reject(
          new TypeError(
            'import() is not available in the sandbox: everything it offers is a global',
          ),
        ),
    );
    const kit = Object.freeze({
      cell: (name: string) => this.#cellFor(name),
      constant: (name: string): never => {
        throw new TypeError(`Assignment to constant variable ${name}.`);
      },
      readOnly: (name: string): never => {
        throw new TypeError(`${name} is read-only in this sandbox`);
      },
      ref: (name: string): unknown => {
        // A variable made since the rewrite (by this execution) is its cell, whatever the global
        // object holds under its name.
        const cell = this.#cells.get(name);
        if (cell !== undefined) return cell.v;
        if (name in global) return global[name];
        throw new ReferenceError(`${name} is not defined`);
      },
      g: global,
    });
    this.#lexicals = Object.freeze({
      [kitName]: kit,
      [evalName]: sandboxEval,
      [importName]: dynamicImport,
      [regExpName]: global.RegExp,
    });
    for (const [name, value] of [
      ['eval', sandboxEval],
      ['Function', this.#makeFunctionConstructor(sandboxEval)],
    ] as const) {
      Object.defineProperty(global, name, { value, writable: false, configurable: false });
    }

    const print = harden((...args: unknown[]) => this.#print(args));
    this.#defineFixed('print', print);
    this.#defineFixed(
      'console',
      harden({ log: print, info: print, warn: print, error: print, debug: print }),
    );
    const ending = new Set(setup.endingFunctionNames);
    for (const name of setup.hostFunctionNames) {
      const call = ending.has(name)
        ? { [name]: (...args: unknown[]) => this.#callEnding(name, args) }[name]
        : { [name]: (...args: unknown[]) => this.#callHost(name, args) }[name];
      this.#defineFixed(name, harden(call as (...args: unknown[]) => Promise<unknown>));
    }
    // What helpers alone see: internal host functions and the isolated evaluator, as lexicals
    // of their own evaluation, never globals.
    const helperScope: Record<string, unknown> = {
      [setup.isolatedEvaluatorName]: harden((source: unknown, globals: unknown) =>
        this.#evaluateIsolated(source, globals),
      ),
    };
    for (const name of setup.internalHostFunctionNames) {
      helperScope[name] = harden(
        { [name]: (...args: unknown[]) => this.#callHost(name, args) }[name] as () => unknown,
      );
    }
    const helperLexicals = { __moduleShimLexicals__: Object.freeze(helperScope) };
    this.#guestHelperNames = new Set(Object.keys(setup.guestHelpers));
    for (const [name, source] of Object.entries(setup.guestHelpers)) {
      this.#defineFixed(name, harden(this.#compartment.evaluate(`(${source})`, helperLexicals)));
    }
    // The shared intrinsics (JSON, Math, Object, Array, Promise, String, RegExp, ...) and the
    // powers given above are fixed: code of one query cannot replace them for the code of a
    // later one in the same session. Variables and the scaffold are accessors, kept apart.
    for (const name of Object.getOwnPropertyNames(global)) {
      const descriptor = Reflect.getOwnPropertyDescriptor(global, name)!;
      if (descriptor.configurable && 'value' in descriptor) {
        Object.defineProperty(global, name, { writable: false, configurable: false });
      }
    }
    this.#baseline = new Set(Object.getOwnPropertyNames(global));

    process.on('unhandledRejection', (reason) =>
      this.#reportUncaught('Unhandled rejection', reason),
    );
    process.on('uncaughtException', (error) => this.#reportUncaught('Uncaught', error));
  }

  /** Handles one message from the host. */
  handle(message: HostMessage): void {
    // A text the host set as bytes is decoded before anything but a listing reads variables.
    if (readsNoVariable.has(message.type)) this.#pendingTexts.scheduleIdleDecode();
    else this.#pendingTexts.decodeAll();
    // While variables are restored (in slices), what reads them is answered and what may change
    // them waits, in order.
    if (this.#restoring && changesVariables.has(message.type)) {
      this.#waitingForRestore.push(message);
      return;
    }
    switch (message.type) {
      case 'restore': {
        this.#preemptCheckpoints();
        const failures = this.#setVariables(message.variables);
        this.#post({ type: 'ready', unrestored: failures.map((failure) => failure.name) });
        return;
      }
      case 'execute':
        this.#preemptCheckpoints();
        void this.#execute(message.id, message.code);
        return;
      case 'probe':
        this.#post({ type: 'memory', arrayBufferBytes: arrayBufferBytes() });
        return;
      case 'list':
        this.#sendListing(message.id);
        return;
      case 'get':
        this.#reply(message.id, () => {
          const meta = this.#meta.get(message.name);
          if (meta === undefined || meta.owner === 'fixed') {
            throw new Error(`no variable named ${message.name}`);
          }
          return this.#cells.get(message.name)?.v;
        });
        return;
      case 'set':
        this.#preemptCheckpoints();
        this.#reply(message.id, () => {
          const failures = this.#setVariables(message.variables);
          if (failures.length > 0) {
            throw new Error(failures.map((failure) => failure.message).join('; '));
          }
          return undefined;
        });
        return;
      case 'snapshot-variables':
        this.#checkpointRequests.push(message);
        if (this.#checkpointRequests.length === 1) void this.#takeCheckpoints();
        return;
      case 'restore-variables': {
        this.#preemptCheckpoints();
        this.#restoring = true;
        void this.#restoreVariables(message.id, message.variables).finally(() => {
          this.#restoring = false;
          const waiting = this.#waitingForRestore;
          this.#waitingForRestore = [];
          for (const next of waiting) this.handle(next);
        });
        return;
      }
      case 'host-result': {
        const call = this.#calls.get(message.id);
        if (call === undefined) return;
        this.#calls.delete(message.id);
        this.#callBytes -= call.bytes;
        if (message.ok) call.resolve(message.value);
        // A fresh error of the compartment: only the message crosses, no stack, no cause.
        else call.reject(new (this.#global.Error as ErrorConstructor)(message.message));
        return;
      }
    }
  }

  // ---- variables ----

  #kindOf(name: string): NameKind | undefined {
    const meta = this.#meta.get(name);
    if (meta !== undefined) {
      if (meta.owner === 'fixed' || meta.readOnly) return 'protected';
      return meta.isConst ? 'const' : 'let';
    }
    const descriptor = Reflect.getOwnPropertyDescriptor(this.#global, name);
    if (descriptor === undefined) return undefined;
    // A fixed property model code defined (an accessor, say) is no built-in: the name can still
    // become a variable, in a cell of its own (see #createVariable).
    if (!descriptor.configurable) return this.#baseline.has(name) ? 'builtin' : undefined;
    return 'value' in descriptor ? 'global' : undefined;
  }

  #cellFor(name: string): Cell {
    const cell = this.#cells.get(name);
    if (cell !== undefined) return cell;
    return this.#createVariable(name, { owner: 'model', readOnly: false, isConst: false });
  }

  /**
   * A new cell, visible on the global object (for `eval`, `globalThis.x`, late lookups), unless
   * model code made the name a fixed property of the global object (an accessor that would
   * intercept the variable's writes): the cell then stays the variable's own, and code that
   * names the variable reaches it, never the property.
   */
  #createVariable(name: string, meta: VariableMeta, value?: unknown): Cell {
    const cell: Cell = { v: value };
    this.#cells.set(name, cell);
    this.#meta.set(name, meta);
    if (Reflect.getOwnPropertyDescriptor(this.#global, name)?.configurable === false) return cell;
    Object.defineProperty(this.#global, name, {
      get: () => cell.v,
      set: (next: unknown) => {
        const current = this.#meta.get(name);
        if (current?.owner === 'fixed' || current?.readOnly) {
          throw new TypeError(`${name} is read-only in this sandbox`);
        }
        if (current?.isConst) throw new TypeError(`Assignment to constant variable ${name}.`);
        cell.v = next;
      },
      enumerable: true,
      configurable: false,
    });
    return cell;
  }

  #defineFixed(name: string, value: unknown): void {
    this.#createVariable(name, { owner: 'fixed', readOnly: true, isConst: true }, value);
  }

  /** Applies `variables`; returns the ones that could not be set. */
  #setVariables(
    variables: readonly VariableRecord[],
  ): { readonly name: string; readonly message: string }[] {
    const failures: { name: string; message: string }[] = [];
    for (const record of variables) {
      const { name, owner, readOnly, isConst } = record;
      const existing = this.#meta.get(name);
      if (
        !isIdentifierName(name) ||
        existing?.owner === 'fixed' ||
        this.#kindOf(name) === 'builtin'
      ) {
        failures.push({ name, message: `${name} is not a name the sandbox can define` });
        continue;
      }
      let value = record.value;
      if (record.serialized) {
        try {
          value = deserializeCheckpointBytes(record.value as Uint8Array);
        } catch (error) {
          failures.push({ name, message: `${name} could not be restored (${messageOf(error)})` });
          continue;
        }
      }
      const stored = readOnly ? harden(value) : value;
      const meta: VariableMeta =
        owner === 'host'
          ? { owner, readOnly, isConst: false, hostValue: stored }
          : { owner, readOnly: false, isConst };
      let cell = this.#cells.get(name);
      if (cell === undefined) {
        cell = this.#createVariable(name, meta, stored);
      } else {
        this.#meta.set(name, meta);
        cell.v = stored;
      }
      this.#pendingTexts.forget(cell);
      if (record.utf8 !== undefined) {
        const { bytes, length } = record.utf8;
        this.#pendingTexts.define(cell, bytes, length, (text) => {
          meta.hostValue = text;
        });
      }
      this.#copied.delete(name);
      if (owner === 'model' && (value === null || typeof value !== 'object')) {
        this.#copied.set(name, { value, bytes: 0 });
      }
    }
    return failures;
  }

  /**
   * The model's variables, described, in no order (the host sorts them). A description is
   * reused while the value is the same and no execution since could have changed it in place
   * (see {@link ReachTracker}), so a step describes what it changed, not every variable; during
   * an execution everything is described.
   */
  #listVariables(): VariableInfo[] {
    const infos: VariableInfo[] = [];
    const generation = this.#reach.generation;
    const reuse = !this.#executing;
    for (const [name, meta] of this.#meta) {
      if (meta.owner === 'fixed') continue;
      const cell = this.#cells.get(name);
      const pending = cell && this.#pendingTexts.peek(cell);
      if (pending !== undefined) {
        infos.push(this.#describeVariable(name, pending.head, pending.length));
        continue;
      }
      const value = cell?.v;
      const listed = this.#listed.get(name);
      if (
        reuse &&
        listed !== undefined &&
        Object.is(listed.value, value) &&
        (isPrimitive(value) || !this.#reach.mayHaveChangedSince(name, listed.generation))
      ) {
        infos.push(listed.info);
        continue;
      }
      const info = this.#describeVariable(name, value);
      if (reuse) this.#listed.set(name, { value, generation, info });
      infos.push(info);
    }
    if (this.#listed.size > infos.length) {
      const names = new Set(infos.map((info) => info.name));
      for (const name of this.#listed.keys()) if (!names.has(name)) this.#listed.delete(name);
    }
    return infos;
  }

  /** `length`: a string's own, when `value` is only its head (a text not decoded yet). */
  #describeVariable(name: string, value: unknown, length?: number): VariableInfo {
    let type: string = typeof value;
    let size = 0;
    try {
      if (value === null) type = 'null';
      else if (typeof value === 'string') size = length ?? value.length;
      else if (Array.isArray(value)) {
        type = 'array';
        size = value.length;
      } else if (value instanceof Map || value instanceof Set) {
        type = value instanceof Map ? 'map' : 'set';
        size = value.size;
      } else if (typeof value === 'object') size = Object.keys(value).length;
    } catch {
      // A proxy that throws: shown with what is known.
    }
    const preview = formatValue(value, { maxLength: 100, quoteStrings: true });
    return { name, type, size, preview };
  }

  /**
   * Answers `list` with what changed since the last listing sent: descriptions are the runtime's
   * own plain data, reused while unchanged (see {@link #listVariables}), so a step sends the
   * variables it changed, not every variable.
   */
  #sendListing(id: number): void {
    let infos: VariableInfo[];
    try {
      infos = this.#listVariables();
    } catch (error) {
      this.#post({ type: 'reply', id, ok: false, message: messageOf(error) });
      return;
    }
    const changed: VariableInfo[] = [];
    const names = new Set<string>();
    for (const info of infos) {
      names.add(info.name);
      if (this.#listingSent.get(info.name) === info) continue;
      this.#listingSent.set(info.name, info);
      changed.push(info);
    }
    const removed: string[] = [];
    for (const name of this.#listingSent.keys()) {
      if (names.has(name)) continue;
      this.#listingSent.delete(name);
      removed.push(name);
    }
    this.#post({ type: 'listing', id, changed, removed });
  }

  /** Turns globals the code created with `globalThis.name = ...` into variables. */
  #adoptGlobals(): void {
    for (const name of Object.keys(this.#global)) {
      if (this.#meta.has(name) || this.#baseline.has(name) || !isIdentifierName(name)) continue;
      const descriptor = Reflect.getOwnPropertyDescriptor(this.#global, name);
      if (descriptor === undefined || !descriptor.configurable || !('value' in descriptor))
        continue;
      this.#createVariable(
        name,
        { owner: 'model', readOnly: false, isConst: false },
        descriptor.value,
      );
    }
  }

  /**
   * Copies what the host needs to restore the model's variables if this worker dies: values
   * that clone small, within the snapshot limit. A value copied before is not sent again while
   * it is the same value and, for an object, no execution since could have changed it in place
   * (see {@link ReachTracker}): a step copies what it changed, not every variable.
   */
  #takeSnapshot(): SnapshotEntry[] {
    const entries: SnapshotEntry[] = [];
    let budget = this.#snapshotLimitBytes;
    const since = this.#copiedGeneration;
    this.#copiedGeneration = this.#reach.generation;
    for (const [name, meta] of this.#meta) {
      if (meta.owner === 'fixed') continue;
      const cell = this.#cells.get(name);
      // A text the host set, not even decoded yet: the host restores it itself.
      if (cell !== undefined && this.#pendingTexts.has(cell)) continue;
      const value = cell?.v;
      const primitive = isPrimitive(value);
      // What the host set and nothing changed since (read-only values are hardened).
      const unchangedHostValue =
        meta.owner === 'host' && Object.is(value, meta.hostValue) && (primitive || meta.readOnly);
      if (unchangedHostValue) continue;
      const { isConst } = meta;
      const copied = this.#copied.get(name);
      if (
        copied !== undefined &&
        Object.is(copied.value, value) &&
        copied.bytes <= budget &&
        (primitive || !this.#reach.mayHaveChangedSince(name, since))
      ) {
        budget -= copied.bytes;
        entries.push({ name, state: 'unchanged', isConst });
        continue;
      }
      let bytes: Uint8Array | undefined;
      try {
        const copy = copyForTransfer(value, budget);
        // The copy runs no getters: its clone takes what was counted (twice for wide strings).
        if (copy.ok) bytes = serializeValue(copy.value);
      } catch {
        // A trap or getter that throws: not restorable.
      }
      if (bytes === undefined || bytes.byteLength > budget) {
        entries.push({ name, state: 'lost' });
        this.#copied.delete(name);
        continue;
      }
      budget -= bytes.byteLength;
      entries.push({ name, state: 'copied', isConst, bytes });
      this.#copied.set(name, { value, bytes: bytes.byteLength });
    }
    return entries;
  }

  // ---- checkpoints ----

  /**
   * Defines model variables from checkpoint bytes, read in slices (see
   * {@link readCheckpointBytes}) so that the worker answers listings meanwhile (and tells the
   * host it is alive every {@link snapshotProgressMs}); replies with the names not restored.
   */
  async #restoreVariables(
    id: number,
    variables: readonly { readonly name: string; readonly bytes: Uint8Array }[],
  ): Promise<void> {
    const failed: string[] = [];
    const records: VariableRecord[] = [];
    const pacing = this.#pacingFor(id);
    let sliceStart = performance.now();
    for (const { name, bytes } of variables) {
      try {
        const reading = readCheckpointBytes(bytes);
        let step = reading.next();
        while (!step.done) {
          if (performance.now() - sliceStart >= pacing.sliceMs) {
            await pacing.pause();
            sliceStart = performance.now();
          }
          step = reading.next();
        }
        records.push({ name, value: step.value, owner: 'model', readOnly: false, isConst: false });
      } catch {
        failed.push(name);
      }
    }
    this.#reply(id, () => {
      for (const failure of this.#setVariables(records)) failed.push(failure.name);
      for (const { name, bytes } of variables) {
        if (!failed.includes(name))
          this.#checkpoints.restored(name, this.#cells.get(name)?.v, bytes);
      }
      return failed;
    });
  }

  /**
   * Takes the checkpoint snapshots asked for, one after another, each in slices (see
   * {@link CheckpointVariables}), so that an `execute` sent meanwhile waits at most a slice: it
   * preempts them, and they answer `preempted` at once. A `request-progress` every
   * {@link snapshotProgressMs} tells the host the worker is alive.
   */
  async #takeCheckpoints(): Promise<void> {
    for (let request = this.#checkpointRequests[0]; request !== undefined; ) {
      const exclude = new Set(request.exclude);
      const variables: [string, unknown][] = [];
      for (const [name, meta] of this.#meta) {
        if (meta.owner !== 'fixed' && !exclude.has(name)) {
          variables.push([name, this.#cells.get(name)?.v]);
        }
      }
      const { id } = request;
      const snapshot = await this.#checkpoints.snapshot(variables, request, this.#pacingFor(id));
      // Preempted: every request waiting was answered then.
      if (snapshot === undefined || this.#checkpointRequests[0] !== request) return;
      this.#checkpointRequests.shift();
      const answer: WorkerMessage = { type: 'variables-snapshot', id, entries: snapshot.entries };
      this.#port.postMessage(answer, snapshot.buffers);
      request = this.#checkpointRequests[0];
    }
  }

  /**
   * Slices of work for request `id`: each pause lets waiting messages in, and every
   * {@link snapshotProgressMs} tells the host (`request-progress`) that the worker is alive.
   */
  #pacingFor(id: number): SnapshotPacing {
    let progressAt = performance.now();
    return {
      sliceMs: snapshotSliceMs,
      pause: () =>
        new Promise<void>((resolve) =>
          setImmediate(() => {
            if (performance.now() - progressAt >= snapshotProgressMs) {
              progressAt = performance.now();
              this.#post({ type: 'request-progress', id });
            }
            resolve();
          }),
        ),
    };
  }

  /** Abandons the checkpoint snapshots asked for, answering `preempted` now. */
  #preemptCheckpoints(): void {
    const requests = this.#checkpointRequests;
    if (requests.length === 0) return;
    this.#checkpointRequests = [];
    this.#checkpoints.preempt();
    for (const { id } of requests) this.#post({ type: 'variables-snapshot', id, preempted: true });
  }

  // ---- execution ----

  async #execute(id: number, code: string): Promise<void> {
    this.#output.reset();
    this.#executing = true;
    this.#ended = false;
    this.#endReached = new Promise((resolve) => {
      this.#reachEnd = () => resolve(undefined);
    });
    let error: string | undefined;
    try {
      // Loading since the worker started: a wait, if any, only for the first execution.
      await loadAcorn();
      this.#codeLines = code.split('\n').length;
      const rewrite = rewriteReplCode(code, this.#scope);
      for (const name of rewrite.captured) this.#captured.add(name);
      if (rewrite.capturesDynamically) this.#capturesDynamically = true;
      for (const [name, kind] of rewrite.declarations) {
        const meta = this.#meta.get(name) ?? this.#createVariableFor(name);
        meta.isConst = kind === 'const';
      }
      this.#reach.beforeExecution(
        {
          // Read-only values are hardened; host functions and print copy what they get.
          names: [...rewrite.names, ...rewrite.declarations.keys()].filter((name) => {
            const meta = this.#meta.get(name);
            return meta === undefined || (meta.owner !== 'fixed' && !meta.readOnly);
          }),
          everything:
            rewrite.reachesDynamically ||
            [...rewrite.names].some((name) => this.#guestHelperNames.has(name)),
        },
        this.#readVariable,
      );
      const completion: Promise<{ v: unknown } | undefined> = this.#compartment.evaluate(
        rewrite.source,
        { __moduleShimLexicals__: this.#lexicals },
      );
      // An ending function (SUBMIT) ends the execution at its call, even when code caught what
      // unwound it and goes on: what it does after has no effect (see `#callEnding`).
      const result = await Promise.race([completion, this.#endReached]);
      if (result !== undefined && result.v !== undefined) this.#writeValue(result.v);
    } catch (thrown) {
      if (!this.#ended) error = this.#describeError(thrown);
    } finally {
      this.#endExecution();
    }
    this.#reach.afterExecution(
      { captured: this.#captured, capturesDynamically: this.#capturesDynamically },
      this.#readVariable,
    );
    this.#adoptGlobals();
    const snapshot = this.#takeSnapshot();
    const executed: WorkerMessage = {
      type: 'executed',
      id,
      error,
      snapshot,
      arrayBufferBytes: arrayBufferBytes(),
    };
    const buffers: ArrayBuffer[] = [];
    for (const entry of snapshot) {
      if (entry.state === 'copied' && ownsBuffer(entry.bytes)) {
        buffers.push(entry.bytes.buffer as ArrayBuffer);
      }
    }
    this.#port.postMessage(executed, buffers);
  }

  #createVariableFor(name: string): VariableMeta {
    this.#createVariable(name, { owner: 'model', readOnly: false, isConst: false });
    return this.#meta.get(name) as VariableMeta;
  }

  /** Ends an execution: timers are cleared, host calls still pending are abandoned. */
  #endExecution(): void {
    this.#executing = false;
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    this.#calls.clear();
    this.#callBytes = 0;
  }

  #writeValue(value: unknown): void {
    if (typeof value === 'string') {
      this.#write(value);
      return;
    }
    this.#write(formatValue(value, { maxLength: this.#output.remaining + 1 }));
  }

  #write(text: string): void {
    if (!this.#executing || this.#ended) return;
    this.#output.write(text);
  }

  #print(args: unknown[]): void {
    if (!this.#executing || this.#ended) return;
    const parts: string[] = [];
    for (const arg of args) {
      parts.push(
        typeof arg === 'string' ? arg : formatValue(arg, { maxLength: this.#output.remaining + 1 }),
      );
    }
    this.#write(`${parts.join(' ')}\n`);
  }

  #reportUncaught(label: string, reason: unknown): void {
    this.#write(`${label}: ${this.#describeError(reason)}\n`);
  }

  /** One readable line, then the model code's own stack frames. */
  #describeError(thrown: unknown): string {
    if (typeof thrown !== 'object' || thrown === null) {
      return `Uncaught ${formatValue(thrown, { maxLength: 500, quoteStrings: true })}`;
    }
    let line: string;
    try {
      const { name, message } = thrown as { name?: unknown; message?: unknown };
      line =
        typeof message === 'string'
          ? `${typeof name === 'string' ? name : 'Error'}: ${cleanMessage(message)}`
          : `Uncaught ${formatValue(thrown, { maxLength: 500 })}`;
    } catch (error) {
      return `Uncaught error (${messageOf(error)})`;
    }
    try {
      void (thrown as { stack?: unknown }).stack;
    } catch {
      // A getter on the guest's error threw: no frames.
    }
    // Columns shift where names were rewritten; lines do not.
    const frames = (callSites.get(thrown) ?? [])
      .filter((site) => site.getScriptNameOrSourceURL() === replSourceUrl)
      .map((site) => ({ name: site.getFunctionName(), line: site.getLineNumber() ?? 0 }))
      .filter((frame) => frame.line <= this.#codeLines)
      .slice(0, maxStackFrames)
      .map(({ name, line }) => {
        const label =
          name === wrapperName ? '<top level>' : !name || name === 'eval' ? '<anonymous>' : name;
        return `    at ${cleanMessage(label)} (line ${line})`;
      });
    return [line, ...frames].join('\n');
  }

  // ---- globals given to the guest ----

  readonly #setTimeout = (callback: unknown, delay?: unknown, ...args: unknown[]): number => {
    if (typeof callback !== 'function') {
      throw new TypeError('setTimeout: the callback must be a function');
    }
    if (!this.#executing || this.#ended) return 0;
    const id = this.#nextId++;
    const milliseconds = Math.min(maxTimerDelay, Math.max(0, Number(delay) || 0));
    const timer = setTimeout(() => {
      this.#timers.delete(id);
      try {
        Reflect.apply(callback, undefined, args);
      } catch (error) {
        this.#reportUncaught('Uncaught in setTimeout', error);
      }
    }, milliseconds);
    this.#timers.set(id, timer);
    return id;
  };

  readonly #clearTimeout = (id: unknown): void => {
    const timer = this.#timers.get(id as number);
    if (timer === undefined) return;
    clearTimeout(timer);
    this.#timers.delete(id as number);
  };

  /**
   * Evaluates `source` in a new Compartment: the standard built-ins with the start
   * compartment's clock and random source, the execution's timers, evaluators that rewrite
   * code as the main ones do, and the own properties of `globals`; nothing of the main
   * compartment's global object.
   */
  #evaluateIsolated(source: unknown, globals: unknown): unknown {
    if (typeof source !== 'string')
      throw new TypeError('evaluateIsolated: source must be a string');
    const compartment = new Compartment({ __options__: true, name: 'rlm-isolated' });
    const global = compartment.globalThis as Record<PropertyKey, unknown>;
    Object.assign(global, {
      Date,
      Math,
      setTimeout: harden(this.#setTimeout),
      clearTimeout: harden(this.#clearTimeout),
    });
    for (const name of ['Compartment', 'lockdown']) Reflect.deleteProperty(global, name);
    const isolatedEval = this.#makeEval(compartment, () => lexicals);
    const lexicals: object = Object.freeze({
      [evalName]: isolatedEval,
      [importName]: (this.#lexicals as Record<string, unknown>)[importName],
      [regExpName]: global.RegExp,
    });
    for (const [name, value] of [
      ['eval', isolatedEval],
      ['Function', this.#makeFunctionConstructor(isolatedEval, global)],
    ] as const) {
      Object.defineProperty(global, name, { value, writable: false, configurable: false });
    }
    if (typeof globals === 'object' && globals !== null) {
      for (const name of Object.keys(globals)) {
        const value = (globals as Record<string, unknown>)[name];
        Object.defineProperty(global, name, { value, writable: false, configurable: false });
      }
    }
    return compartment.evaluate(rewriteEvalCode(source), { __moduleShimLexicals__: lexicals });
  }

  #makeEval(
    compartment: Compartment = this.#compartment,
    lexicals: () => object = () => this.#lexicals,
  ): (source: unknown) => unknown {
    // A concise method: named `eval`, not a constructor. Each call gets a fresh SES evaluator,
    // so nothing guest code does to one evaluation's scope outlives it.
    const { eval: sandboxEval } = {
      eval(source: unknown): unknown {
        if (typeof source !== 'string') return source;
        return compartment.evaluate(rewriteEvalCode(source), {
          __moduleShimLexicals__: lexicals(),
        });
      },
    };
    return harden(sandboxEval);
  }

  #makeFunctionConstructor(
    sandboxEval: (source: unknown) => unknown,
    global: Record<PropertyKey, unknown> = this.#global,
  ): Function {
    const guestFunction = global.Function as Function;
    function SandboxFunction(...args: unknown[]): unknown {
      const body = args.length > 0 ? `${args.at(-1)}` : '';
      const parameters = args
        .slice(0, -1)
        .map((parameter) => `${parameter}`)
        .join(',');
      return sandboxEval(`(function anonymous(${parameters}\n) {\n${body}\n})`);
    }
    Object.defineProperties(SandboxFunction, {
      name: { value: 'Function' },
      prototype: { value: guestFunction.prototype, writable: false },
    });
    return harden(SandboxFunction);
  }

  // ---- the host bridge ----

  #callHost(name: string, args: unknown[]): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const GuestError = this.#global.Error as ErrorConstructor;
      if (!this.#executing) {
        reject(new GuestError(`${name} was called after its execution ended`));
        return;
      }
      if (this.#ended) {
        reject(new GuestError(`${name} was not called: SUBMIT or FINAL_VAR ended this code block`));
        return;
      }
      const id = this.#nextId++;
      let packed: Packed;
      try {
        packed = this.#packArguments(name, args);
      } catch (error) {
        reject(error);
        return;
      }
      this.#calls.set(id, { resolve, reject, bytes: packed.size });
      this.#callBytes += packed.size;
      this.#post({ type: 'call', id, name, args: packed.transferred }, packed.transferred.bytes);
    });
  }

  /**
   * Calls an ending function (`SUBMIT`, `FINAL_VAR`): sends the call, ends the execution and
   * throws to unwind the code. Arguments that cannot leave the sandbox throw a plain error
   * instead, and the code goes on.
   */
  #callEnding(name: string, args: unknown[]): never {
    const GuestError = this.#global.Error as ErrorConstructor;
    if (!this.#executing) throw new GuestError(`${name} was called after its execution ended`);
    if (!this.#ended) {
      const packed = this.#packArguments(name, args);
      // No reply is awaited: the host's answer finds no pending call and is dropped.
      this.#post(
        { type: 'call', id: this.#nextId++, name, args: packed.transferred },
        packed.transferred.bytes,
      );
      this.#ended = true;
      this.#reachEnd();
    }
    throw new GuestError(`${name} ended this code block`);
  }

  /**
   * The arguments of a host call of `name`, ready to leave (see {@link #pack}).
   *
   * @throws an error of the compartment, for model code, saying why they cannot leave.
   */
  #packArguments(name: string, args: unknown[]): Packed {
    try {
      return this.#pack(args, this.#callBytes);
    } catch (error) {
      const reason =
        error instanceof TransferTooLargeError
          ? `its arguments are too large to leave the sandbox: ${error.message}`
          : `arguments must be plain data (${messageOf(error)})`;
      throw new (this.#global.Error as ErrorConstructor)(`${name}: ${reason}`);
    }
  }

  #reply(id: number, compute: () => unknown): void {
    let packed: Packed;
    try {
      const value = compute();
      try {
        packed = this.#pack(value, 0);
      } catch (error) {
        throw new Error(
          error instanceof TransferTooLargeError
            ? `the value is too large to leave the sandbox: ${error.message}; keep it in the sandbox and take smaller pieces`
            : `the value cannot be copied out of the sandbox (${messageOf(error)})`,
        );
      }
    } catch (error) {
      this.#post({ type: 'reply', id, ok: false, message: messageOf(error) });
      return;
    }
    this.#post(
      { type: 'reply', id, ok: true, value: packed.transferred },
      packed.transferred.bytes,
    );
  }

  /**
   * A value ready to leave the worker: a copy without getters or proxies, sized before anything
   * is cloned (see {@link copyForTransfer}) and refused over the transfer limit, so that neither
   * this worker nor the host ever clones more. Small copies cross as they are; larger ones as
   * the bytes of their clone, which the host measures before decoding. Getters and proxy traps
   * of guest objects run here, once.
   *
   * @param pendingBytes bytes already in flight (the arguments of pending calls), which share
   *   the limit
   * @throws TransferTooLargeError over the limit; an Error saying what does not clone; what a
   *   getter throws.
   */
  #pack(value: unknown, pendingBytes: number): Packed {
    const limit = this.#transferLimitBytes;
    const room = Math.max(0, limit - pendingBytes);
    const copy = copyForTransfer(value, room, { acceptInstances: true });
    if (!copy.ok) {
      if (copy.tooLarge) throw new TransferTooLargeError(limit, pendingBytes);
      throw new Error(`${copy.problem} cannot be copied out of the sandbox`);
    }
    if (copy.bytes <= directTransferBytes) {
      return { transferred: { plain: copy.value }, size: copy.bytes };
    }
    const bytes = serializeValue(copy.value);
    if (bytes.byteLength > room) throw new TransferTooLargeError(limit, pendingBytes);
    return { transferred: { bytes }, size: bytes.byteLength };
  }

  /** Posts `message`, moving `bytes` (not copying them) when they own their buffer. */
  #post(message: WorkerMessage, bytes?: Uint8Array): void {
    if (bytes !== undefined && ownsBuffer(bytes)) {
      this.#port.postMessage(message, [bytes.buffer as ArrayBuffer]);
    } else this.#port.postMessage(message);
  }
}

/** Whether `bytes` spans the whole of its own ArrayBuffer, which can then be moved. */
