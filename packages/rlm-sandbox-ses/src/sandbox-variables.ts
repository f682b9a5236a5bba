/**
 * The sandbox's variables as the host reads and sets them: requests to the worker, with what
 * the host keeps to restore a new worker (see {@link VariableCopies}) and the digests of
 * checkpoint snapshots (see {@link CheckpointDigests}).
 */
import {
  SandboxError,
  type SetVariablesOptions,
  type SnapshotVariablesOptions,
  type VariableInfo,
  type VariableSnapshotEntry,
} from '@rlm/core';
import { CheckpointDigests } from './checkpoint-digests.js';
import { hostVariableRecord } from './host-variable-record.js';
import { isIdentifierName } from './is-identifier-name.js';
import type { VariableCopies } from './variable-copies.js';
import type { WorkerSnapshotEntry } from './worker-protocol.js';
import type { WorkerRequests } from './worker-requests.js';

export class SandboxVariables {
  readonly #requests: WorkerRequests;
  readonly #copies: VariableCopies;
  readonly #digests = new CheckpointDigests();
  /** Host functions, guest helpers, `print` and `console`: names no variable can take. */
  readonly #isFixedName: (name: string) => boolean;

  constructor(
    requests: WorkerRequests,
    copies: VariableCopies,
    isFixedName: (name: string) => boolean,
  ) {
    this.#requests = requests;
    this.#copies = copies;
    this.#isFixedName = isFixedName;
  }

  /** The worker is gone: the digests it reported no longer hold. */
  workerStopped(): void {
    this.#digests.forget();
  }

  list(): Promise<VariableInfo[]> {
    return this.#requests.request({ type: 'list' }) as Promise<VariableInfo[]>;
  }

  get(name: string): Promise<unknown> {
    return this.#requests.request({ type: 'get', name });
  }

  async set(
    values: Readonly<Record<string, unknown>>,
    options: SetVariablesOptions = {},
  ): Promise<void> {
    const readOnly = options.readOnly ?? false;
    for (const name of Object.keys(values)) {
      if (!isIdentifierName(name) || this.#isFixedName(name)) {
        throw new SandboxError(
          `@rlm/sandbox-ses: cannot set ${JSON.stringify(name)}: use an identifier that is not a host function`,
        );
      }
    }
    const variables = Object.entries(values).map(([name, value]) =>
      hostVariableRecord(name, value, readOnly),
    );
    await this.#requests.request({ type: 'set', variables });
    for (const [name, value] of Object.entries(values)) this.#copies.hostSet(name, value, readOnly);
  }

  /**
   * Snapshots every model variable in one message to the worker, which copies, serialises
   * (structured clone) and hashes each one itself; only changed variables' bytes cross, moved
   * rather than copied. The worker takes it in slices: an execution (or a change of variables)
   * asked for meanwhile preempts it, and it rejects with `SnapshotPreemptedError`; what it made
   * of values that execution cannot have changed serves the next snapshot.
   */
  async snapshot(options: SnapshotVariablesOptions): Promise<VariableSnapshotEntry[]> {
    if (!(Number.isSafeInteger(options.maxBytesPerVariable) && options.maxBytesPerVariable > 0)) {
      throw new SandboxError(
        `@rlm/sandbox-ses: maxBytesPerVariable must be a positive integer of bytes, got ${options.maxBytesPerVariable}`,
      );
    }
    const previous = options.previousDigests ?? {};
    const previousDigests = this.#digests.begin(previous);
    try {
      const sent = (await this.#requests.request({
        type: 'snapshot-variables',
        exclude: [...(options.exclude ?? [])],
        maxBytesPerVariable: options.maxBytesPerVariable,
        previousDigests,
      })) as WorkerSnapshotEntry[];
      return this.#digests.complete(sent, previous);
    } finally {
      this.#digests.end();
    }
  }

  /** Defines model variables from `snapshotVariables` bytes, decoded inside the worker. */
  async restore(bytesByName: Readonly<Record<string, Uint8Array>>): Promise<string[]> {
    const variables = Object.entries(bytesByName).map(([name, bytes]) => ({ name, bytes }));
    for (const { name, bytes } of variables) {
      if (!isIdentifierName(name) || this.#isFixedName(name) || !(bytes instanceof Uint8Array)) {
        throw new SandboxError(
          `@rlm/sandbox-ses: cannot restore ${JSON.stringify(name)}: give an identifier that is not a host function, with the Uint8Array snapshotVariables made`,
        );
      }
    }
    if (variables.length === 0) return [];
    return (await this.#requests.request({ type: 'restore-variables', variables })) as string[];
  }
}
