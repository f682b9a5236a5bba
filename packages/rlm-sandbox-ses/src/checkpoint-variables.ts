import { createHash } from 'node:crypto';
import type { VariableSnapshotEntry } from '@rlm/core';
import { copyForTransfer } from './copy-for-transfer.js';
import { isPrimitive, type ReachTracker } from './reach-tracker.js';
import { serializeValue } from './serialize-value.js';

/** What {@link CheckpointVariables.snapshot} is asked. */
export interface CheckpointRequest {
  readonly maxBytesPerVariable: number;
  /**
   * The digests the caller holds, or `as-reported`: those of the entries the last snapshot
   * returned (none before the first).
   */
  readonly previousDigests: Readonly<Record<string, string>> | 'as-reported';
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
 * digest matches the caller's `previousDigests` is reported unchanged, without bytes.
 *
 * Some are not even serialised again: a primitive identical to the one last snapshotted
 * (strings are immutable), and an object, identical too, that no execution since could have
 * reached (the {@link ReachTracker} given, which the executions feed).
 */
export class CheckpointVariables {
  /** Values as last snapshotted (or primitives restored), with their digest. */
  readonly #known = new Map<string, { readonly value: unknown; readonly digest: string }>();
  readonly #reach: ReachTracker;
  /** The reach generation the last snapshot saw. */
  #snapshotGeneration = 0;
  /** The digests of the entries the last snapshot returned. */
  #reported: Readonly<Record<string, string>> = {};
  /** Values serialised, over this object's life (what an unchanged value saves). */
  serializations = 0;

  constructor(reach: ReachTracker) {
    this.#reach = reach;
  }

  /** Snapshots `variables` (name, value), sorted by name. */
  snapshot(
    variables: Iterable<readonly [string, unknown]>,
    request: CheckpointRequest,
  ): CheckpointSnapshot {
    const entries: VariableSnapshotEntry[] = [];
    const buffers: ArrayBuffer[] = [];
    const seen = new Set<string>();
    const since = this.#snapshotGeneration;
    const previousDigests =
      request.previousDigests === 'as-reported' ? this.#reported : request.previousDigests;
    const sorted = [...variables].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (const [name, value] of sorted) {
      seen.add(name);
      const previous = previousDigests[name];
      const known = this.#known.get(name);
      if (
        known !== undefined &&
        Object.is(known.value, value) &&
        known.digest === previous &&
        (isPrimitive(value) || !this.#reach.mayHaveChangedSince(name, since))
      ) {
        entries.push({ name, state: 'unchanged', digest: known.digest });
        continue;
      }
      this.serializations += 1;
      const serialized = this.#serialize(value, request.maxBytesPerVariable);
      if (!serialized.ok) {
        this.#known.delete(name);
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
      this.#known.set(name, { value, digest });
      if (digest === previous) {
        entries.push({ name, state: 'unchanged', digest });
        continue;
      }
      entries.push({ name, state: 'saved', bytes, digest });
      if (ownsBuffer(bytes)) buffers.push(bytes.buffer as ArrayBuffer);
    }
    for (const name of this.#known.keys()) if (!seen.has(name)) this.#known.delete(name);
    this.#snapshotGeneration = this.#reach.generation;
    const reported: Record<string, string> = {};
    for (const entry of entries) if (entry.state !== 'skipped') reported[entry.name] = entry.digest;
    this.#reported = reported;
    return { entries, buffers };
  }

  /** Remembers a primitive restored from `bytes`, so the next snapshot need not serialise it. */
  restored(name: string, value: unknown, bytes: Uint8Array): void {
    if (isPrimitive(value)) this.#known.set(name, { value, digest: digestOf(bytes) });
    else this.#known.delete(name);
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
      // The copy's count is an estimate (16 bytes a string where a clone takes a few, a character
      // one byte where a two-byte one takes two): it bounds the work at twice the cap, and the
      // clone's real length decides.
      const copy = copyForTransfer(value, maxBytes * 2);
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
