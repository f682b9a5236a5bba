/**
 * Messages between the host (`QuickJsSandbox`) and its worker (`GuestSession`). Values cross as
 * JSON text in the guest kit's graph format (see `decodeGraph`); output crosses through a
 * shared `OutputBuffer`, and a stop request through shared memory the worker's interrupt
 * handler reads, so that both work while the worker is busy.
 */

import type { VariableInfo } from '@rlm/core';

/**
 * `workerData` of the sandbox worker. A worker starts before it knows its sandbox (a pool keeps
 * one ready): it instantiates QuickJS and waits for a {@link WorkerSetupMessage}; every later
 * message is a {@link HostMessage}.
 */
export interface WorkerStart {
  /** The QuickJS WebAssembly module, compiled once by the host. */
  readonly wasmModule: WebAssembly.Module;
  /** Most bytes the QuickJS heap (the WebAssembly memory) may take. */
  readonly memoryBytes: number;
}

/** The first message a worker gets: which sandbox it serves. */
export interface WorkerSetupMessage {
  readonly type: 'setup';
  readonly setup: WorkerSetup;
}

/** What a worker needs to know of its sandbox. */
export interface WorkerSetup {
  /** The shared memory of the worker's `OutputBuffer`. */
  readonly outputBuffer: SharedArrayBuffer;
  /**
   * One `Int32`: the id of the execution the host wants stopped (0: none). The worker's
   * interrupt handler reads it, so it stops code that never yields.
   */
  readonly control: SharedArrayBuffer;
  /** The longest a request between executions may run inside QuickJS, in milliseconds. */
  readonly requestTimeoutMs: number;
  /** The characters of output an execution keeps, and of a shown value. */
  readonly maxOutputChars: number;
  /** Names of the host functions to install as globals. */
  readonly hostFunctionNames: readonly string[];
  /** Names among them whose call ends the execution (core's `SandboxOptions.endingFunctions`). */
  readonly endingFunctionNames: readonly string[];
  /** Names of the host functions only guest helpers see, in scope at their install. */
  readonly internalHostFunctionNames: readonly string[];
  /** The name under which guest helpers see the isolated evaluator. */
  readonly isolatedEvaluatorName: string;
  /** Guest helpers to install as globals: name -> function expression source. */
  readonly guestHelpers: Readonly<Record<string, string>>;
  /** Characters of model variables copied to the host after each execution, at most. */
  readonly snapshotLimitChars: number;
  /**
   * The longest the copies after an execution may take, in milliseconds: variables not copied
   * by then are left out (lost on a restart).
   */
  readonly snapshotTimeoutMs: number;
}

/** A variable the host restores into a new worker, encoded in the graph format. */
export interface RestoreRecord {
  readonly name: string;
  /** The JSON text of the value's graph (see `encodeGraph`); `undefined` for a string. */
  readonly text?: string;
  /** The value itself when it is a string (no JSON text to build and parse). */
  readonly string?: string;
  /** `host`: set with `setVariables`; `model`: made by model code (from a snapshot). */
  readonly owner: 'host' | 'model';
  readonly readOnly: boolean;
}

/** One host call from model code. */
export interface HostCall {
  readonly id: number;
  readonly name: string;
  /** The JSON text of the arguments array's graph. */
  readonly args: string;
}

/** How host call `id` settled: `{"value": ...}` or `{"error": message}`, as JSON. */
export interface HostResult {
  readonly id: number;
  readonly reply: string;
}

/** The state of one model variable after an execution. */
export type SnapshotEntry =
  /** Its value, copied now: the JSON text of its graph. */
  | { readonly name: string; readonly state: 'copied'; readonly text: string }
  /** The value copied before, which no execution since could have changed. */
  | { readonly name: string; readonly state: 'unchanged' }
  /** Not restorable: a function, or over the snapshot limit. */
  | { readonly name: string; readonly state: 'lost' };

export type HostMessage =
  /** Defines the host's variables and the model's from the last snapshot; answered `ready`. */
  | { readonly type: 'restore'; readonly variables: readonly RestoreRecord[] }
  | { readonly type: 'execute'; readonly id: number; readonly code: string }
  /** Ends execution `id` if it waits (a timeout or an abort); busy code reads `control`. */
  | { readonly type: 'stop'; readonly id: number }
  | { readonly type: 'list'; readonly id: number }
  | { readonly type: 'get'; readonly id: number; readonly name: string }
  | {
      readonly type: 'set';
      readonly id: number;
      readonly variables: readonly RestoreRecord[];
    }
  /** Host calls that settled together: each `reply` is `{"value": ...}` or `{"error": message}` as JSON. */
  | { readonly type: 'host-results'; readonly results: readonly HostResult[] };

export type WorkerMessage =
  | {
      readonly type: 'ready';
      /** Variables of the `restore` message that could not be defined. */
      readonly unrestored: readonly string[];
    }
  /**
   * Execution `id`'s code has ended: `error` as the model reads it (the host words a stop
   * itself); `outOfMemory` when the QuickJS heap ran out, after which the worker is replaced.
   * The snapshot follows in `executed`.
   */
  | {
      readonly type: 'ended';
      readonly id: number;
      readonly error: string | undefined;
      readonly stopped: boolean;
      readonly outOfMemory: boolean;
    }
  /** The copies of changed model variables for a restart, after `ended`. */
  | { readonly type: 'executed'; readonly id: number; readonly snapshot: readonly SnapshotEntry[] }
  /** The engine failed outside any code's control (a native stack overflow, no memory left): the worker exits. */
  | { readonly type: 'fault'; readonly reason: string; readonly outOfMemory: boolean }
  | { readonly type: 'listing'; readonly id: number; readonly variables: readonly VariableInfo[] }
  /** `text`: the JSON text of the value's graph. */
  | { readonly type: 'reply'; readonly id: number; readonly ok: true; readonly text?: string }
  | { readonly type: 'reply'; readonly id: number; readonly ok: false; readonly message: string }
  /** Host calls that model code made together (between two looks at the worker's messages). */
  | { readonly type: 'calls'; readonly calls: readonly HostCall[] };
