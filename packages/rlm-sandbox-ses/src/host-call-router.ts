/**
 * The host's side of host function calls: a call from the worker is checked, its arguments
 * decoded within the transfer limit, the function run, and its result or error sent back as
 * plain data; calls of a worker that was replaced are abandoned.
 */
import type { HostFunction } from '@rlm/core';
import type { ExecutionClock } from '@rlm/core/sandbox-support';
import { describeBytes } from './describe-bytes.js';
import { describeError } from './describe-error.js';
import { deserializeValue } from './serialize-value.js';
import type { HostMessage, Transferred } from './worker-protocol.js';

/** A worker host calls come from, as the router needs to answer it. */
export interface CallingWorker {
  /** Whether the sandbox still uses this worker (not replaced, not disposed). */
  readonly isCurrent: () => boolean;
  readonly post: (message: HostMessage) => void;
}

export class HostCallRouter {
  readonly #hostFunctions: Readonly<Record<string, HostFunction>>;
  readonly #internalHostFunctions: Readonly<Record<string, HostFunction>>;
  /** Bytes one value may take to leave the worker. */
  readonly #transferLimitBytes: number;
  /** Bytes of the arguments of the current worker's host calls not yet settled. */
  #callBytes = 0;

  constructor(
    hostFunctions: Readonly<Record<string, HostFunction>>,
    internalHostFunctions: Readonly<Record<string, HostFunction>>,
    transferLimitBytes: number,
  ) {
    this.#hostFunctions = hostFunctions;
    this.#internalHostFunctions = internalHostFunctions;
    this.#transferLimitBytes = transferLimitBytes;
  }

  /** The current worker stopped: its calls are abandoned, their arguments no longer count. */
  abandonAll(): void {
    this.#callBytes = 0;
  }

  /**
   * A value that left the worker. The worker sized it before anything was cloned and sends a
   * small one as it is; a larger one comes as the bytes of its clone, decoded here only after
   * checking how many crossed: never more than the transfer limit, counting `pendingBytes`
   * already decoded and still held, whatever the worker sent.
   *
   * @param what the subject of the error, with its verb: `the value is`
   */
  unpack(transferred: Transferred, what: string, pendingBytes = 0): unknown {
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

  /**
   * Runs host function `name` for call `id` of `worker` and answers it.
   *
   * @param clock the running execution's clock, which counts only busy time until the call
   *   settles
   */
  call(
    worker: CallingWorker,
    id: number,
    name: string,
    transferred: Transferred,
    clock: ExecutionClock | undefined,
  ): void {
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
      const args = this.unpack(transferred, `${name}: its arguments are`, this.#callBytes);
      if (!Array.isArray(args)) throw new Error(`${name}: its arguments did not arrive as a list`);
      callBytes = transferred.bytes?.byteLength ?? 0;
      pending = Promise.resolve(hostFunction(...args));
    } catch (error) {
      pending = Promise.reject(error);
    }
    clock?.callStarted();
    this.#callBytes += callBytes;
    const answer = (message: HostMessage) => {
      clock?.callSettled();
      // A restarted or disposed sandbox abandons the calls of its old worker.
      if (!worker.isCurrent()) return;
      this.#callBytes -= callBytes;
      try {
        worker.post(message);
      } catch (error) {
        worker.post({
          type: 'host-result',
          id,
          ok: false,
          message: `${name} returned a value that cannot be copied into the sandbox (${describeError(error)})`,
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
          message: describeError(error) || `${name} failed`,
        }),
    );
  }
}
