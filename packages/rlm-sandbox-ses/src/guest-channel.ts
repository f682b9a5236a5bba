/**
 * The worker's side of the message port: posts messages to the host, moving the bytes they
 * carry, and packs values to leave the worker within the transfer limit.
 */
import type { MessagePort } from 'node:worker_threads';
import { copyForTransfer } from './copy-for-transfer.js';
import { messageOf } from './message-of.js';
import { ownsBuffer, serializeValue } from './serialize-value.js';
import { TransferTooLargeError } from './transfer-too-large-error.js';
import type { Transferred, WorkerMessage } from './worker-protocol.js';

/**
 * Values that copy to at most this many bytes (by {@link copyForTransfer}'s count; a clone of
 * wide strings takes up to twice) cross as they are, without a serializer round trip of their
 * own; larger ones cross as bytes the host measures before decoding.
 */
const directTransferBytes = 64 * 1024;

/** A value made ready to leave the worker, and the bytes it counts for. */
export interface Packed {
  readonly transferred: Transferred;
  readonly size: number;
}

export class GuestChannel {
  readonly #port: MessagePort;
  readonly #transferLimitBytes: number;

  constructor(port: MessagePort, transferLimitBytes: number) {
    this.#port = port;
    this.#transferLimitBytes = transferLimitBytes;
  }

  /** Posts `message`, moving `bytes` (not copying them) when they own their buffer. */
  post(message: WorkerMessage, bytes?: Uint8Array): void {
    if (bytes !== undefined && ownsBuffer(bytes)) {
      this.#port.postMessage(message, [bytes.buffer as ArrayBuffer]);
    } else this.#port.postMessage(message);
  }

  /** Posts `message`, moving `buffers`. */
  postMoving(message: WorkerMessage, buffers: ArrayBuffer[]): void {
    this.#port.postMessage(message, buffers);
  }

  /** Answers request `id` with what `compute` returns, or with the message of what it throws. */
  reply(id: number, compute: () => unknown): void {
    let packed: Packed;
    try {
      const value = compute();
      try {
        packed = this.pack(value, 0);
      } catch (error) {
        throw new Error(
          error instanceof TransferTooLargeError
            ? `the value is too large to leave the sandbox: ${error.message}; keep it in the sandbox and take smaller pieces`
            : `the value cannot be copied out of the sandbox (${messageOf(error)})`,
        );
      }
    } catch (error) {
      this.post({ type: 'reply', id, ok: false, message: messageOf(error) });
      return;
    }
    this.post({ type: 'reply', id, ok: true, value: packed.transferred }, packed.transferred.bytes);
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
  pack(value: unknown, pendingBytes: number): Packed {
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
}
