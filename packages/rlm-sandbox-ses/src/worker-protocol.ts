/**
 * Messages between the host (`SesSandbox`, its worker pool) and its worker (`GuestRuntime`).
 * Values cross by structured clone; output crosses through the shared {@link OutputBuffer}.
 *
 * A worker starts before it knows its sandbox (a pool keeps one ready): it loads SES, locks
 * down, says `started`, and waits for a {@link WorkerSetupMessage}; every later message is a
 * {@link HostMessage}.
 */

import type { VariableInfo, VariableSnapshotEntry } from '@rlm/core';

/** `workerData` of the sandbox worker. */
export interface WorkerStart {
  /** V8's code cache of SES, made by an earlier worker of this process, if any. */
  readonly sesCodeCache: Uint8Array | undefined;
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
  /** Names of the host functions to install as globals. */
  readonly hostFunctionNames: readonly string[];
  /** Names among them whose call ends the execution (core's `SandboxOptions.endingFunctions`). */
  readonly endingFunctionNames: readonly string[];
  /** Names of the host functions only guest helpers see, in scope at their install. */
  readonly internalHostFunctionNames: readonly string[];
  /** The name under which guest helpers see the isolated evaluator (core's `isolatedEvaluatorName`). */
  readonly isolatedEvaluatorName: string;
  /** Guest helpers to install as globals: name -> function expression source. */
  readonly guestHelpers: Readonly<Record<string, string>>;
  /** Bytes of model variables copied to the host after each execution, at most. */
  readonly snapshotLimitBytes: number;
  /**
   * Most bytes one value may take to leave the worker (host-call arguments, a variable the host
   * reads): sized before it is copied, refused over.
   */
  readonly transferLimitBytes: number;
}

/** A variable the host sets or restores. */
export interface VariableRecord {
  readonly name: string;
  readonly value: unknown;
  /** `host`: set with `setVariables`; `model`: defined by model code (restored from a snapshot). */
  readonly owner: 'host' | 'model';
  readonly readOnly: boolean;
  readonly isConst: boolean;
  /** `value` is a snapshot copy's bytes (see `serializeValue`), decoded by the worker. */
  readonly serialized?: boolean;
  /**
   * The value is the text of these UTF-8 `bytes` (shared memory), `length` UTF-16 code units
   * long, decoded by the worker.
   */
  readonly utf8?: { readonly bytes: Uint8Array; readonly length: number };
}

export type HostMessage =
  | { readonly type: 'restore'; readonly variables: readonly VariableRecord[] }
  /** Asks for a `memory` report. */
  | { readonly type: 'probe' }
  | {
      readonly type: 'execute';
      readonly id: number;
      readonly code: string;
      /**
       * The id of a `list` request the host made with it: the worker answers it once idle after
       * the execution, so the host lists the variables without asking (and a worker held by
       * code the execution left running is found as any unanswered request is).
       */
      readonly listingId: number;
    }
  | { readonly type: 'list'; readonly id: number }
  | { readonly type: 'get'; readonly id: number; readonly name: string }
  | { readonly type: 'set'; readonly id: number; readonly variables: readonly VariableRecord[] }
  /** Asks for a `variables-snapshot` (see `Sandbox.snapshotVariables`). */
  | {
      readonly type: 'snapshot-variables';
      readonly id: number;
      readonly exclude: readonly string[];
      readonly maxBytesPerVariable: number;
      /**
       * `as-reported`: the digests of the entries this worker's last snapshot reported (the
       * host found them equal), so that they need not cross again.
       */
      readonly previousDigests: Readonly<Record<string, string>> | 'as-reported';
    }
  /** Defines model variables from snapshot bytes; the reply lists the names not restored. */
  | {
      readonly type: 'restore-variables';
      readonly id: number;
      readonly variables: readonly { readonly name: string; readonly bytes: Uint8Array }[];
    }
  | {
      readonly type: 'host-result';
      readonly id: number;
      readonly ok: true;
      readonly value: unknown;
    }
  | {
      readonly type: 'host-result';
      readonly id: number;
      readonly ok: false;
      readonly message: string;
    };

/**
 * One variable of a checkpoint snapshot, as the worker sends it: as `VariableSnapshotEntry`,
 * but a saved value's bytes come in `parts`, which the host joins, and an unchanged one has no
 * digest.
 */
export type WorkerSnapshotEntry =
  | Extract<VariableSnapshotEntry, { readonly state: 'skipped' }>
  /** Its digest is the one the host sent (no need to send it back). */
  | { readonly name: string; readonly state: 'unchanged' }
  | {
      readonly name: string;
      readonly state: 'saved';
      readonly parts: readonly Uint8Array[];
      readonly digest: string;
    };

/** The state of one model variable after an execution. */
export type SnapshotEntry =
  /** Its value, copied now: its structured clone as bytes (see `serializeValue`). */
  | {
      readonly name: string;
      readonly state: 'copied';
      readonly isConst: boolean;
      readonly bytes: Uint8Array;
    }
  /** The value copied before, which no execution since could have changed. */
  | { readonly name: string; readonly state: 'unchanged'; readonly isConst: boolean }
  /** Not restorable: a function, a class instance, or over the snapshot limit. */
  | { readonly name: string; readonly state: 'lost' };

export type WorkerMessage =
  /**
   * SES is loaded and locked down: the worker waits for its setup. `usedCodeCache`: SES was
   * compiled from the code cache in `WorkerStart`.
   */
  | { readonly type: 'started'; readonly usedCodeCache: boolean }
  /** V8's code cache of SES, for the pool to hand to later workers. */
  | { readonly type: 'code-cache'; readonly data: Uint8Array }
  | {
      /** The variables restored and the parser loaded: executions may start. */
      readonly type: 'ready';
      /** Variables of the `restore` message that could not be defined. */
      readonly unrestored: readonly string[];
    }
  | {
      readonly type: 'executed';
      readonly id: number;
      readonly error: string | undefined;
      /** The copies for a restart, in one message (their bytes moved, not copied). */
      readonly snapshot: readonly SnapshotEntry[];
      /** The worker's ArrayBuffer memory, which V8's heap limit does not count. */
      readonly arrayBufferBytes: number;
    }
  /** The worker's ArrayBuffer memory, which V8's heap limit does not count. */
  | { readonly type: 'memory'; readonly arrayBufferBytes: number }
  /** The answer to `snapshot-variables`; the bytes are moved, not copied. */
  | {
      readonly type: 'variables-snapshot';
      readonly id: number;
      readonly entries: readonly WorkerSnapshotEntry[];
    }
  /**
   * The answer to `snapshot-variables` abandoned for a message that may change the variables
   * (an `execute`, say), sent before that message is handled.
   */
  | { readonly type: 'variables-snapshot'; readonly id: number; readonly preempted: true }
  /**
   * The answer to `list`: the variables described differently from this worker's last
   * `listing`, and those gone since (the host keeps the rest).
   */
  | {
      readonly type: 'listing';
      readonly id: number;
      readonly changed: readonly VariableInfo[];
      readonly removed: readonly string[];
    }
  /**
   * A `snapshot-variables` or `restore-variables` still under way, in slices: the worker is
   * alive and answering.
   */
  | { readonly type: 'request-progress'; readonly id: number }
  /** `value`: the value the host asked for. */
  | { readonly type: 'reply'; readonly id: number; readonly ok: true; readonly value: Transferred }
  | { readonly type: 'reply'; readonly id: number; readonly ok: false; readonly message: string }
  /** `args`: the arguments array. */
  | {
      readonly type: 'call';
      readonly id: number;
      readonly name: string;
      readonly args: Transferred;
    };

/**
 * A value leaving the worker, sized first: a small one as it is (`plain`), a larger one as the
 * bytes of its structured clone (see `serializeValue`), at most the transfer limit, which the
 * host checks before decoding them.
 */
export type Transferred =
  | { readonly plain: unknown; readonly bytes?: undefined }
  | { readonly bytes: Uint8Array };
