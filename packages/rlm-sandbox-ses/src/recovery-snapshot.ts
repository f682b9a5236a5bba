/**
 * What the host keeps to restore the model's variables if the worker dies: after each
 * execution, the values that clone small, within the snapshot limit, copied again only when
 * they may have changed.
 */
import { isPrimitive, type ReachTracker } from '@rlm/core/sandbox-support';
import { copyForTransfer } from './copy-for-transfer.js';
import type { GuestVariables, SetObserver, VariableMeta } from './guest-variables.js';
import { serializeValue } from './serialize-value.js';
import type { SnapshotEntry } from './worker-protocol.js';

export class RecoverySnapshot implements SetObserver {
  readonly #variables: GuestVariables;
  readonly #reach: ReachTracker;
  readonly #limitBytes: number;
  /**
   * Values last copied to the host, by variable, with the bytes they took of the snapshot limit
   * (0 for primitives the host set).
   */
  readonly #copied = new Map<string, { readonly value: unknown; readonly bytes: number }>();
  /** The reach generation the last snapshot saw. */
  #copiedGeneration = 0;

  constructor(variables: GuestVariables, reach: ReachTracker, limitBytes: number) {
    this.#variables = variables;
    this.#reach = reach;
    this.#limitBytes = limitBytes;
  }

  /** A value the host set: the host has it, unless it is an object model code may change. */
  variableSet(name: string, owner: VariableMeta['owner'], value: unknown): void {
    this.#copied.delete(name);
    if (owner === 'model' && (value === null || typeof value !== 'object')) {
      this.#copied.set(name, { value, bytes: 0 });
    }
  }

  /**
   * Copies what the host needs to restore the model's variables. A value copied before is not
   * sent again while it is the same value and, for an object, no execution since could have
   * changed it in place (see {@link ReachTracker}): a step copies what it changed, not every
   * variable.
   */
  take(): SnapshotEntry[] {
    const entries: SnapshotEntry[] = [];
    let budget = this.#limitBytes;
    const since = this.#copiedGeneration;
    this.#copiedGeneration = this.#reach.generation;
    for (const { name, meta, cell } of this.#variables.listed()) {
      // A text the host set, not even decoded yet: the host restores it itself.
      if (cell !== undefined && this.#variables.pendingTexts.has(cell)) continue;
      const value = cell?.v;
      const primitive = isPrimitive(value);
      // What the host set and nothing changed since (read-only values are hardened).
      const unchangedHostValue =
        meta.owner === 'host' && Object.is(value, meta.hostValue) && (primitive || meta.readOnly);
      if (unchangedHostValue) continue;
      const { isConst } = meta;
      const copied = this.#copied.get(name);
      if (
        copied !== undefined &&
        Object.is(copied.value, value) &&
        copied.bytes <= budget &&
        (primitive || !this.#reach.mayHaveChangedSince(name, since))
      ) {
        budget -= copied.bytes;
        entries.push({ name, state: 'unchanged', isConst });
        continue;
      }
      let bytes: Uint8Array | undefined;
      try {
        const copy = copyForTransfer(value, budget);
        // The copy runs no getters: its clone takes what was counted (twice for wide strings).
        if (copy.ok) bytes = serializeValue(copy.value);
      } catch {
        // A trap or getter that throws: not restorable.
      }
      if (bytes === undefined || bytes.byteLength > budget) {
        entries.push({ name, state: 'lost' });
        this.#copied.delete(name);
        continue;
      }
      budget -= bytes.byteLength;
      entries.push({ name, state: 'copied', isConst, bytes });
      this.#copied.set(name, { value, bytes: bytes.byteLength });
    }
    return entries;
  }
}
