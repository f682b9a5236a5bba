/**
 * Host function calls made by model code: arguments packed within the transfer limit, sent to
 * the host, and settled by its answer with plain data or a fresh error of the compartment.
 */
import type { ExecutionStatus } from './execution-status.js';
import type { GuestChannel, Packed } from './guest-channel.js';
import { messageOf } from './message-of.js';
import { TransferTooLargeError } from './transfer-too-large-error.js';
import type { HostMessage } from './worker-protocol.js';

interface PendingCall {
  resolve(value: unknown): void;
  reject(error: Error): void;
  readonly bytes: number;
}

export class GuestHostCalls {
  readonly #channel: GuestChannel;
  readonly #status: ExecutionStatus;
  /** The compartment's `Error`: what model code catches. */
  readonly #GuestError: ErrorConstructor;
  /** Pending host calls of the running execution, by id. */
  readonly #calls = new Map<number, PendingCall>();
  /** Bytes of the arguments of the pending host calls: they share the transfer limit. */
  #callBytes = 0;
  #nextId = 1;

  constructor(channel: GuestChannel, status: ExecutionStatus, GuestError: ErrorConstructor) {
    this.#channel = channel;
    this.#status = status;
    this.#GuestError = GuestError;
  }

  /** Calls host function `name`; settles with the host's answer. */
  call(name: string, args: unknown[]): Promise<unknown> {
    return new Promise((resolve, reject) => {
      if (!this.#status.executing) {
        reject(new this.#GuestError(`${name} was called after its execution ended`));
        return;
      }
      if (this.#status.ended) {
        reject(
          new this.#GuestError(`${name} was not called: SUBMIT or FINAL_VAR ended this code block`),
        );
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
      this.#channel.post(
        { type: 'call', id, name, args: packed.transferred },
        packed.transferred.bytes,
      );
    });
  }

  /**
   * Calls an ending function (`SUBMIT`, `FINAL_VAR`): sends the call, ends the execution and
   * throws to unwind the code. Arguments that cannot leave the sandbox throw a plain error
   * instead, and the code goes on.
   */
  callEnding(name: string, args: unknown[]): never {
    if (!this.#status.executing) {
      throw new this.#GuestError(`${name} was called after its execution ended`);
    }
    if (!this.#status.ended) {
      const packed = this.#packArguments(name, args);
      // No reply is awaited: the host's answer finds no pending call and is dropped.
      this.#channel.post(
        { type: 'call', id: this.#nextId++, name, args: packed.transferred },
        packed.transferred.bytes,
      );
      this.#status.end();
    }
    throw new this.#GuestError(`${name} ended this code block`);
  }

  /** Settles the call the host answered; an answer to no pending call is dropped. */
  settle(message: Extract<HostMessage, { type: 'host-result' }>): void {
    const call = this.#calls.get(message.id);
    if (call === undefined) return;
    this.#calls.delete(message.id);
    this.#callBytes -= call.bytes;
    if (message.ok) call.resolve(message.value);
    // A fresh error of the compartment: only the message crosses, no stack, no cause.
    else call.reject(new this.#GuestError(message.message));
  }

  /** Abandons the calls still pending when an execution ends. */
  abandonAll(): void {
    this.#calls.clear();
    this.#callBytes = 0;
  }

  /**
   * The arguments of a host call of `name`, ready to leave (see {@link GuestChannel.pack}).
   *
   * @throws an error of the compartment, for model code, saying why they cannot leave.
   */
  #packArguments(name: string, args: unknown[]): Packed {
    try {
      return this.#channel.pack(args, this.#callBytes);
    } catch (error) {
      const reason =
        error instanceof TransferTooLargeError
          ? `its arguments are too large to leave the sandbox: ${error.message}`
          : `arguments must be plain data (${messageOf(error)})`;
      throw new this.#GuestError(`${name}: ${reason}`);
    }
  }
}
