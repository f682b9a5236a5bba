import { createHash } from 'node:crypto';
import type { VariableSnapshotEntry } from '@rlm/core';
import { copyForTransfer } from './copy-for-transfer.js';
import { serializeValue } from './serialize-value.js';

/** What {@link CheckpointVariables.snapshot} is asked. */
export interface CheckpointRequest {
  readonly maxBytesPerVariable: number;
  readonly previousDigests: Readonly<Record<string, string>>;
}

/** A snapshot's entries and the buffers its bytes live in, to move rather than copy. */
export interface CheckpointSnapshot {
  readonly entries: VariableSnapshotEntry[];
  readonly buffers: ArrayBuffer[];
}

/** SHA-256 of `bytes`, in lowercase hex: the id the artifact store gives the same bytes. */
export function digestOf(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Checkpoint snapshots of model variables, taken inside the worker. Each value is copied without
 * running guest code twice (see {@link copyForTransfer}, which also sizes it against the cap
 * before anything is serialised), serialised by structured clone, and hashed. A variable whose
 * digest matches the caller's `previousDigests` is reported unchanged, without bytes; a
 * primitive identical to the one last snapshotted (strings are immutable) is not serialised or
 * hashed again at all. Objects are always serialised again: code can mutate them through any
 * alias, so only their bytes tell.
 */
export class CheckpointVariables {
  /** Primitives as last snapshotted or restored, with their digest. */
  readonly #primitives = new Map<string, { readonly value: unknown; readonly digest: string }>();

  /** Snapshots `variables` (name, value), sorted by name. */
  snapshot(
    variables: Iterable<readonly [string, unknown]>,
    request: CheckpointRequest,
  ): CheckpointSnapshot {
    const entries: VariableSnapshotEntry[] = [];
    const buffers: ArrayBuffer[] = [];
    const seen = new Set<string>();
    const sorted = [...variables].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (const [name, value] of sorted) {
      seen.add(name);
      const previous = request.previousDigests[name];
      const known = this.#primitives.get(name);
      if (known !== undefined && Object.is(known.value, value) && known.digest === previous) {
        entries.push({ name, state: 'unchanged', digest: known.digest });
        continue;
      }
      const serialized = this.#serialize(value, request.maxBytesPerVariable);
      if (!serialized.ok) {
        this.#primitives.delete(name);
        entries.push({
          name,
          state: 'skipped',
          reason: serialized.reason,
          tooLarge: serialized.tooLarge,
        });
        continue;
      }
      const { bytes } = serialized;
      const digest = digestOf(bytes);
      if (value === null || (typeof value !== 'object' && typeof value !== 'function')) {
        this.#primitives.set(name, { value, digest });
      } else {
        this.#primitives.delete(name);
      }
      if (digest === previous) {
        entries.push({ name, state: 'unchanged', digest });
        continue;
      }
      entries.push({ name, state: 'saved', bytes, digest });
      if (ownsBuffer(bytes)) buffers.push(bytes.buffer as ArrayBuffer);
    }
    for (const name of this.#primitives.keys()) if (!seen.has(name)) this.#primitives.delete(name);
    return { entries, buffers };
  }

  /** Remembers a primitive restored from `bytes`, so the next snapshot need not serialise it. */
  restored(name: string, value: unknown, bytes: Uint8Array): void {
    if (value === null || (typeof value !== 'object' && typeof value !== 'function')) {
      this.#primitives.set(name, { value, digest: digestOf(bytes) });
    } else {
      this.#primitives.delete(name);
    }
  }

  #serialize(
    value: unknown,
    maxBytes: number,
  ):
    | { readonly ok: true; readonly bytes: Uint8Array }
    | { readonly ok: false; readonly reason: string; readonly tooLarge: boolean } {
    const tooLarge = {
      ok: false,
      reason: `larger than the checkpoint limit of ${maxBytes} bytes`,
      tooLarge: true,
    } as const;
    try {
      const copy = copyForTransfer(value, maxBytes);
      if (!copy.ok) {
        return copy.tooLarge ? tooLarge : { ok: false, reason: copy.problem, tooLarge: false };
      }
      const bytes = serializeValue(copy.value);
      // Two-byte strings serialise to twice what the copy counted.
      return bytes.byteLength > maxBytes ? tooLarge : { ok: true, bytes };
    } catch (error) {
      return {
        ok: false,
        reason: `reading it threw (${error instanceof Error ? error.message : String(error)})`,
        tooLarge: false,
      };
    }
  }
}

function ownsBuffer(bytes: Uint8Array): boolean {
  return (
    bytes.byteOffset === 0 &&
    bytes.byteLength === bytes.buffer.byteLength &&
    bytes.buffer instanceof ArrayBuffer
  );
}
