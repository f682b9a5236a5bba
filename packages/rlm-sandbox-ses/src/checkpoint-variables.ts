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

/** What an execution's code names, for {@link CheckpointVariables.beforeExecution}. */
export interface ExecutionNames {
  /** The writable variables its code names (in functions too), declarations included. */
  readonly names: Iterable<string>;
  /**
   * It may reach any variable: it used `eval`, `Function`, `globalThis` or top-level `this`, or
   * called a guest helper (code that is not rewritten).
   */
  readonly everything: boolean;
}

/** The state after an execution, for {@link CheckpointVariables.afterExecution}. */
export interface ExecutionAfter {
  /** Variables that functions made by any execution name (they change when those run). */
  readonly captured: ReadonlySet<string>;
  /** Whether some function made by an execution reaches variables dynamically. */
  readonly capturesDynamically: boolean;
}

/**
 * Checkpoint snapshots of model variables, taken inside the worker. Each value is copied without
 * running guest code twice (see {@link copyForTransfer}, which also sizes it against the cap
 * before anything is serialised), serialised by structured clone, and hashed. A variable whose
 * digest matches the caller's `previousDigests` is reported unchanged, without bytes.
 *
 * Some are not even serialised again: a primitive identical to the one last snapshotted
 * (strings are immutable), and an object, identical too, that no execution since could have
 * reached. Reach is tracked conservatively from the names each execution's code names: the
 * object-valued variables named in one execution form one group for good (one may now hold the
 * other), and naming any of a group marks the whole group; naming an object or a function also
 * links and marks every variable some function names (a closure may run); reaching variables
 * dynamically, or through a guest helper, marks everything.
 */
export class CheckpointVariables {
  /** Values as last snapshotted (or primitives restored), with their digest. */
  readonly #known = new Map<string, { readonly value: unknown; readonly digest: string }>();
  /** Union-find parents of the groups of names named together. */
  readonly #groups = new Map<string, string>();
  /** Group roots marked since the last snapshot. */
  readonly #marked = new Set<string>();
  #everythingMarked = false;
  #pending:
    | { readonly names: string[]; readonly objectsBefore: string[]; readonly everything: boolean }
    | undefined;
  /** Values serialised, over this object's life (what an unchanged value saves). */
  serializations = 0;

  /** Notes what an execution's code names, before it runs. */
  beforeExecution(execution: ExecutionNames, readVariable: (name: string) => unknown): void {
    const names = [...new Set(execution.names)];
    this.#pending = {
      names,
      objectsBefore: names.filter((name) => !isPrimitive(readVariable(name))),
      everything: execution.everything,
    };
  }

  /**
   * Marks what the execution noted by {@link beforeExecution} could have changed, and links the
   * object-valued variables it named (before or after it ran) into one group for good.
   */
  afterExecution(after: ExecutionAfter, readVariable: (name: string) => unknown): void {
    const pending = this.#pending;
    this.#pending = undefined;
    if (pending === undefined) return;
    const objectsNow = pending.names.filter((name) => !isPrimitive(readVariable(name)));
    const touchesObjects = pending.objectsBefore.length > 0 || objectsNow.length > 0;
    if (pending.everything || (touchesObjects && after.capturesDynamically)) {
      this.#everythingMarked = true;
      return;
    }
    if (!touchesObjects) return;
    // A function it called may change, or link, whatever some function names.
    const linked = [...pending.objectsBefore, ...objectsNow, ...after.captured];
    const [first, ...rest] = linked;
    if (first === undefined) return;
    for (const name of rest) this.#union(first, name);
    this.#marked.add(this.#root(first));
  }

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
      const known = this.#known.get(name);
      if (
        known !== undefined &&
        Object.is(known.value, value) &&
        known.digest === previous &&
        (isPrimitive(value) || !this.#mayHaveChanged(name))
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
    this.#marked.clear();
    this.#everythingMarked = false;
    return { entries, buffers };
  }

  #mayHaveChanged(name: string): boolean {
    return this.#everythingMarked || this.#marked.has(this.#root(name));
  }

  #root(name: string): string {
    let root = name;
    for (let parent = this.#groups.get(root); parent !== undefined && parent !== root; ) {
      root = parent;
      parent = this.#groups.get(root);
    }
    if (root !== name) this.#groups.set(name, root);
    return root;
  }

  #union(a: string, b: string): void {
    const rootA = this.#root(a);
    const rootB = this.#root(b);
    if (rootA === rootB) return;
    this.#groups.set(rootB, rootA);
    // A marked group stays marked once merged.
    if (this.#marked.delete(rootB)) this.#marked.add(rootA);
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

function isPrimitive(value: unknown): boolean {
  return value === null || (typeof value !== 'object' && typeof value !== 'function');
}

function ownsBuffer(bytes: Uint8Array): boolean {
  return (
    bytes.byteOffset === 0 &&
    bytes.byteLength === bytes.buffer.byteLength &&
    bytes.buffer instanceof ArrayBuffer
  );
}
