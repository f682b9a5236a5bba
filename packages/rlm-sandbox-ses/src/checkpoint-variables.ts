import { compareNames } from './compare-names.js';
import { isPrimitive, type ReachTracker } from '@rlm/core/sandbox-support';
import { digestOf, type PiecesResult, serializeInPieces } from './serialize-in-pieces.js';
import { ownsBuffer } from './serialize-value.js';
import type { WorkerSnapshotEntry } from './worker-protocol.js';

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
  readonly entries: WorkerSnapshotEntry[];
  readonly buffers: ArrayBuffer[];
}

/** How a snapshot shares the worker: it works in slices and lets other messages in between. */
export interface SnapshotPacing {
  /** Milliseconds a slice may run before the snapshot pauses. */
  readonly sliceMs: number;
  /** Resolves once the worker has handled what was waiting (an `execute`, say). */
  pause(): Promise<void>;
}

/** A value as serialised (or known) at a reach generation. */
interface Seen {
  readonly value: unknown;
  /** The reach generation when its serialisation began. */
  readonly generation: number;
}

/**
 * Checkpoint snapshots of model variables, taken inside the worker in slices (see
 * {@link SnapshotPacing}), each value serialised by structured clone, a large one in pieces
 * (see {@link serializeInPieces}), and hashed. A variable whose digest matches the caller's
 * `previousDigests` is reported unchanged, without bytes.
 *
 * A snapshot is {@link CheckpointVariables.preempt}ed when something may change the variables
 * (an execution): it is abandoned, but what it made is kept, valid as long as the value is the
 * same and no execution since could have reached it (the {@link ReachTracker} given, which the
 * executions feed), so that the next snapshot goes on from there, down to the piece of a large
 * array it had reached. Likewise some values are not even serialised again: a primitive
 * identical to the one last reported (strings are immutable), and an object, identical too,
 * that no execution since could have reached.
 */
export class CheckpointVariables {
  readonly #reach: ReachTracker;
  /** Values as last reported (or primitives restored), with their digest. */
  readonly #known = new Map<string, Seen & { readonly digest: string }>();
  /** Values serialised by a snapshot that was preempted: not reported yet. */
  readonly #made = new Map<string, Seen & { readonly result: PiecesResult & { ok: true } }>();
  /** Values a preempted snapshot was serialising, with the pieces still to make. */
  readonly #partial = new Map<string, Seen & { readonly pieces: Generator<void, PiecesResult> }>();
  #running: { cancelled: boolean } | undefined;
  /** The digests of the entries the last snapshot returned. */
  #reported: Readonly<Record<string, string>> = {};
  /** Values whose serialisation began, over this object's life (what an unchanged value saves). */
  serializations = 0;
  /** Slices a snapshot paused after, over this object's life. */
  pauses = 0;

  constructor(reach: ReachTracker) {
    this.#reach = reach;
  }

  /**
   * Snapshots `variables` (name, value), sorted by name. Resolves with `undefined` when
   * {@link CheckpointVariables.preempt}ed (another snapshot preempts this one too).
   */
  async snapshot(
    variables: Iterable<readonly [string, unknown]>,
    request: CheckpointRequest,
    pacing: SnapshotPacing,
  ): Promise<CheckpointSnapshot | undefined> {
    this.preempt();
    const job = { cancelled: false };
    this.#running = job;
    const previousDigests =
      request.previousDigests === 'as-reported' ? this.#reported : request.previousDigests;
    const sorted = [...variables].sort(([a], [b]) => compareNames(a, b));
    const entries: WorkerSnapshotEntry[] = [];
    const reportedAs = new Map<string, Seen & { readonly digest: string }>();
    let sliceStart = performance.now();
    for (const [name, value] of sorted) {
      const previous = previousDigests[name];
      const known = this.#known.get(name);
      if (known !== undefined && known.digest === previous && this.#holds(name, known, value)) {
        entries.push({ name, state: 'unchanged' });
        reportedAs.set(name, known);
        continue;
      }
      let made = this.#made.get(name);
      if (made !== undefined && !this.#holds(name, made, value)) made = undefined;
      if (made === undefined) {
        let partial = this.#partial.get(name);
        if (partial !== undefined && !this.#holds(name, partial, value)) {
          partial.pieces.return(undefined as never);
          partial = undefined;
        }
        if (partial === undefined) {
          this.serializations += 1;
          partial = {
            value,
            generation: this.#reach.generation,
            pieces: serializeInPieces(value, request.maxBytesPerVariable),
          };
          this.#partial.set(name, partial);
        }
        let step = partial.pieces.next();
        while (!step.done) {
          if (performance.now() - sliceStart >= pacing.sliceMs) {
            this.pauses += 1;
            await pacing.pause();
            if (job.cancelled) return undefined;
            sliceStart = performance.now();
          }
          step = partial.pieces.next();
        }
        this.#partial.delete(name);
        const result = step.value;
        if (!result.ok) {
          this.#made.delete(name);
          entries.push({
            name,
            state: 'skipped',
            reason: result.reason,
            tooLarge: result.tooLarge,
          });
          continue;
        }
        made = { value, generation: partial.generation, result };
        this.#made.set(name, made);
      }
      const { digest, parts } = made.result;
      reportedAs.set(name, { value, generation: made.generation, digest });
      entries.push(
        digest === previous
          ? { name, state: 'unchanged' }
          : { name, state: 'saved', parts, digest },
      );
    }
    this.#running = undefined;
    // Reported: the bytes leave with the answer; what was made is now known.
    this.#made.clear();
    this.#partial.clear();
    this.#known.clear();
    for (const [name, seen] of reportedAs) this.#known.set(name, seen);
    this.#reported = Object.fromEntries([...reportedAs].map(([name, seen]) => [name, seen.digest]));
    const buffers: ArrayBuffer[] = [];
    for (const entry of entries) {
      if (entry.state !== 'saved') continue;
      for (const part of entry.parts)
        if (ownsBuffer(part)) buffers.push(part.buffer as ArrayBuffer);
    }
    return { entries, buffers };
  }

  /** Abandons the snapshot running, if any (it resolves with `undefined`), keeping what it made. */
  preempt(): void {
    if (this.#running !== undefined) this.#running.cancelled = true;
    this.#running = undefined;
  }

  /** Remembers a primitive restored from `bytes`, so the next snapshot need not serialise it. */
  restored(name: string, value: unknown, bytes: Uint8Array): void {
    this.#made.delete(name);
    this.#partial.delete(name);
    if (isPrimitive(value)) {
      this.#known.set(name, { value, generation: this.#reach.generation, digest: digestOf(bytes) });
    } else this.#known.delete(name);
  }

  /**
   * Whether what was seen of `name` still holds: the same value and, for an object, no execution
   * since could have changed it in place.
   */
  #holds(name: string, seen: Seen, value: unknown): boolean {
    return (
      Object.is(seen.value, value) &&
      (isPrimitive(value) || !this.#reach.mayHaveChangedSince(name, seen.generation))
    );
  }
}
