/**
 * Runs one block of model code: rewritten for the REPL (see `rewriteReplCode`), evaluated in
 * the compartment, its value written, then the variables it made adopted and what the host
 * needs to restore them sent with the result.
 */
import { getHeapStatistics } from 'node:v8';
import type { ReachTracker } from '@rlm/core/sandbox-support';
import type { ExecutionStatus } from './execution-status.js';
import type { GuestChannel } from './guest-channel.js';
import type { GuestHostCalls } from './guest-host-calls.js';
import type { GuestOutput } from './guest-output.js';
import type { GuestTimers } from './guest-timers.js';
import type { GuestVariables } from './guest-variables.js';
import { loadAcorn } from './load-acorn.js';
import type { RecoverySnapshot } from './recovery-snapshot.js';
import { ReplRewriteCache } from './repl-rewrite-cache.js';
import { ownsBuffer } from './serialize-value.js';
import type { WorkerMessage } from './worker-protocol.js';

/**
 * The worker's ArrayBuffer memory, which V8's heap limit does not count: V8's external memory,
 * which counts every ArrayBuffer and typed array guest code can make (it has no
 * SharedArrayBuffer, Atomics or WebAssembly), read in ~1 µs where `process.memoryUsage()`
 * reads `/proc` for ~20 µs on every execution. Node before 20.13 lacks it.
 */
export function arrayBufferBytes(): number {
  const { external_memory: external } = getHeapStatistics() as { external_memory?: number };
  return external ?? process.memoryUsage().arrayBuffers;
}

/** The parts an execution works with. */
export interface ExecutionParts {
  readonly compartment: Compartment;
  /** The lexicals every evaluation of model code gets (the rewriter's helpers). */
  readonly lexicals: object;
  readonly variables: GuestVariables;
  readonly reach: ReachTracker;
  readonly status: ExecutionStatus;
  readonly output: GuestOutput;
  readonly timers: GuestTimers;
  readonly hostCalls: GuestHostCalls;
  readonly recovery: RecoverySnapshot;
  readonly channel: GuestChannel;
  /** Guest helpers run code the REPL rewrite does not see: a call may reach any variable. */
  readonly guestHelperNames: ReadonlySet<string>;
}

export class GuestExecution {
  readonly #parts: ExecutionParts;
  /** Variables that functions made by earlier executions name (see `rewriteReplCode`). */
  readonly #captured = new Set<string>();
  #capturesDynamically = false;
  readonly #rewrites = new ReplRewriteCache();
  readonly #scope = {
    kindOf: (name: string) => this.#parts.variables.kindOf(name),
    isCaptured: (name: string) => this.#capturesDynamically || this.#captured.has(name),
  };

  readonly #read = (name: string): unknown => this.#parts.variables.read(name);

  constructor(parts: ExecutionParts) {
    this.#parts = parts;
  }

  /** Runs `code`, then posts `executed` for request `id`. */
  async execute(id: number, code: string): Promise<void> {
    const { variables, reach, status, output } = this.#parts;
    output.reset(code);
    status.begin();
    let error: string | undefined;
    try {
      // Loading since the worker started: a wait, if any, only for the first execution.
      await loadAcorn();
      const rewrite = this.#rewrites.rewrite(code, this.#scope);
      for (const name of rewrite.captured) this.#captured.add(name);
      if (rewrite.capturesDynamically) this.#capturesDynamically = true;
      for (const [name, kind] of rewrite.declarations) {
        variables.metaFor(name).isConst = kind === 'const';
      }
      reach.beforeExecution(
        {
          // Read-only values are hardened; host functions and print copy what they get.
          names: [...rewrite.names, ...rewrite.declarations.keys()].filter((name) => {
            const meta = variables.meta(name);
            return meta === undefined || (meta.owner !== 'fixed' && !meta.readOnly);
          }),
          everything:
            rewrite.reachesDynamically ||
            [...rewrite.names].some((name) => this.#parts.guestHelperNames.has(name)),
        },
        this.#read,
      );
      const completion: Promise<{ v: unknown } | undefined> = this.#parts.compartment.evaluate(
        rewrite.source,
        { __moduleShimLexicals__: this.#parts.lexicals },
      );
      // An ending function (SUBMIT) ends the execution at its call, even when code caught what
      // unwound it and goes on: what it does after has no effect (see `GuestHostCalls`).
      const result = await Promise.race([completion, status.endReached]);
      if (result !== undefined && result.v !== undefined) output.writeValue(result.v);
    } catch (thrown) {
      if (!status.ended) error = output.describeError(thrown);
    } finally {
      // Timers are cleared, host calls still pending are abandoned.
      status.finish();
      this.#parts.timers.clearAll();
      this.#parts.hostCalls.abandonAll();
    }
    reach.afterExecution(
      { captured: this.#captured, capturesDynamically: this.#capturesDynamically },
      this.#read,
    );
    variables.adoptGlobals();
    const snapshot = this.#parts.recovery.take();
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
    this.#parts.channel.postMoving(executed, buffers);
  }
}
