/**
 * Listings of the model's variables for the host: each described by the shared rule (see
 * `describeVariable` of `@rlm/core/sandbox-support`), a description reused while the value cannot have changed, and
 * only what changed since the last listing sent.
 */
import type { VariableInfo } from '@rlm/core';
import { describeVariable, isPrimitive, type ReachTracker } from '@rlm/core/sandbox-support';
import type { ExecutionStatus } from './execution-status.js';
import { formatValue } from './format-value.js';
import type { GuestChannel } from './guest-channel.js';
import type { GuestVariables } from './guest-variables.js';
import { messageOf } from './message-of.js';

/** Previews as the model reads values elsewhere: strings quoted, bounded. */
const preview = (value: unknown, maxChars: number) =>
  formatValue(value, { maxLength: maxChars, quoteStrings: true });

export class VariableListing {
  readonly #variables: GuestVariables;
  readonly #reach: ReachTracker;
  readonly #status: ExecutionStatus;
  readonly #channel: GuestChannel;
  /** The descriptions the last listing sent, by name. */
  readonly #sent = new Map<string, VariableInfo>();
  /** Listing entries as last described, with the value and the reach generation they saw. */
  readonly #described = new Map<
    string,
    { readonly value: unknown; readonly generation: number; readonly info: VariableInfo }
  >();

  constructor(
    variables: GuestVariables,
    reach: ReachTracker,
    status: ExecutionStatus,
    channel: GuestChannel,
  ) {
    this.#variables = variables;
    this.#reach = reach;
    this.#status = status;
    this.#channel = channel;
  }

  /**
   * Answers `list` request `id` with what changed since the last listing sent: descriptions are
   * plain data of the worker's own, reused while unchanged, so a step sends the variables it
   * changed, not every variable.
   */
  send(id: number): void {
    let infos: VariableInfo[];
    try {
      infos = this.#describeAll();
    } catch (error) {
      this.#channel.post({ type: 'reply', id, ok: false, message: messageOf(error) });
      return;
    }
    const changed: VariableInfo[] = [];
    const names = new Set<string>();
    for (const info of infos) {
      names.add(info.name);
      if (this.#sent.get(info.name) === info) continue;
      this.#sent.set(info.name, info);
      changed.push(info);
    }
    const removed: string[] = [];
    for (const name of this.#sent.keys()) {
      if (names.has(name)) continue;
      this.#sent.delete(name);
      removed.push(name);
    }
    this.#channel.post({ type: 'listing', id, changed, removed });
  }

  /**
   * The model's variables, described, in no order (the host sorts them). A description is
   * reused while the value is the same and no execution since could have changed it in place
   * (see {@link ReachTracker}), so a step describes what it changed, not every variable; during
   * an execution everything is described.
   */
  #describeAll(): VariableInfo[] {
    const infos: VariableInfo[] = [];
    const generation = this.#reach.generation;
    const reuse = !this.#status.executing;
    for (const { name, cell } of this.#variables.listed()) {
      const pending = cell && this.#variables.pendingTexts.peek(cell);
      if (pending !== undefined) {
        infos.push(describeVariable(name, pending.head, preview, pending.length));
        continue;
      }
      const value = cell?.v;
      const described = this.#described.get(name);
      if (
        reuse &&
        described !== undefined &&
        Object.is(described.value, value) &&
        (isPrimitive(value) || !this.#reach.mayHaveChangedSince(name, described.generation))
      ) {
        infos.push(described.info);
        continue;
      }
      const info = describeVariable(name, value, preview);
      if (reuse) this.#described.set(name, { value, generation, info });
      infos.push(info);
    }
    if (this.#described.size > infos.length) {
      const names = new Set(infos.map((info) => info.name));
      for (const name of this.#described.keys()) if (!names.has(name)) this.#described.delete(name);
    }
    return infos;
  }
}
