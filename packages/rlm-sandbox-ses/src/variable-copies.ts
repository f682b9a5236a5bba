/**
 * What the host keeps to restore a new worker's variables: the values the host set, and copies
 * of the model's variables as of the last execution (their structured clones as bytes, which
 * the host never decodes).
 */
import { hostVariableRecord } from './host-variable-record.js';
import type { SnapshotEntry, VariableRecord } from './worker-protocol.js';

export class VariableCopies {
  /** Variables set by the host: restored into every new worker. */
  readonly #hostVariables = new Map<string, { value: unknown; readOnly: boolean }>();
  /** Copies of model variables as of the last execution, restored into a new worker. */
  readonly #snapshot = new Map<string, { bytes: Uint8Array; isConst: boolean }>();
  /** Model variables after the last execution, to tell which a restart loses. */
  #modelVariables: readonly string[] = [];

  /** The host set `name`: a copy of the model's value no longer applies. */
  hostSet(name: string, value: unknown, readOnly: boolean): void {
    this.#hostVariables.set(name, { value, readOnly });
    this.#snapshot.delete(name);
  }

  /** Applies the snapshot the worker sent with an execution's result. */
  commit(entries: readonly SnapshotEntry[]): void {
    const names = new Set<string>();
    for (const entry of entries) {
      names.add(entry.name);
      if (entry.state === 'copied') {
        this.#snapshot.set(entry.name, { bytes: entry.bytes, isConst: entry.isConst });
      } else if (entry.state === 'unchanged') {
        const previous = this.#snapshot.get(entry.name);
        if (previous) previous.isConst = entry.isConst;
      } else {
        this.#snapshot.delete(entry.name);
      }
    }
    for (const name of this.#snapshot.keys()) if (!names.has(name)) this.#snapshot.delete(name);
    this.#modelVariables = [...names];
  }

  /** Model variables a new worker cannot get back: neither copied nor set by the host. */
  uncopied(): Set<string> {
    return new Set(
      this.#modelVariables.filter(
        (name) => !this.#snapshot.has(name) && !this.#hostVariables.has(name),
      ),
    );
  }

  /** What a new worker is restored with. */
  records(): VariableRecord[] {
    const records: VariableRecord[] = [];
    for (const [name, { value, readOnly }] of this.#hostVariables) {
      records.push(hostVariableRecord(name, value, readOnly));
    }
    for (const [name, { bytes, isConst }] of this.#snapshot) {
      records.push({
        name,
        value: bytes,
        owner: 'model',
        readOnly: false,
        isConst,
        serialized: true,
      });
    }
    return records;
  }
}
