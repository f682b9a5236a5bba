/**
 * Checkpoint snapshots and restores of the model's variables in the worker (see
 * `Sandbox.snapshotVariables`), worked in slices so that the worker answers meanwhile, and
 * preempted by anything that may change the variables.
 */
import type { ReachTracker } from '@rlm/core/sandbox-support';
import { CheckpointVariables, type SnapshotPacing } from './checkpoint-variables.js';
import type { GuestChannel } from './guest-channel.js';
import type { GuestVariables } from './guest-variables.js';
import { readCheckpointBytes } from './serialize-in-pieces.js';
import type { HostMessage, VariableRecord, WorkerMessage } from './worker-protocol.js';

/** How long a checkpoint snapshot or restore works before letting waiting messages in. */
const snapshotSliceMs = 2;
/** How often a checkpoint snapshot or restore under way tells the host it is alive. */
const snapshotProgressMs = 250;

type SnapshotRequest = Extract<HostMessage, { type: 'snapshot-variables' }>;

export class GuestCheckpoints {
  readonly #variables: GuestVariables;
  readonly #channel: GuestChannel;
  readonly #checkpoints: CheckpointVariables;
  /** Checkpoint snapshots asked for: the first is being taken. */
  #requests: SnapshotRequest[] = [];

  constructor(variables: GuestVariables, reach: ReachTracker, channel: GuestChannel) {
    this.#variables = variables;
    this.#channel = channel;
    this.#checkpoints = new CheckpointVariables(reach);
  }

  /** Queues a snapshot request; the first starts at once. */
  requestSnapshot(request: SnapshotRequest): void {
    this.#requests.push(request);
    if (this.#requests.length === 1) void this.#takeSnapshots();
  }

  /** Abandons the checkpoint snapshots asked for, answering `preempted` now. */
  preempt(): void {
    const requests = this.#requests;
    if (requests.length === 0) return;
    this.#requests = [];
    this.#checkpoints.preempt();
    for (const { id } of requests) {
      this.#channel.post({ type: 'variables-snapshot', id, preempted: true });
    }
  }

  /**
   * Defines model variables from checkpoint bytes, read in slices (see
   * {@link readCheckpointBytes}) so that the worker answers listings meanwhile (and tells the
   * host it is alive every {@link snapshotProgressMs}); replies with the names not restored.
   */
  async restore(
    id: number,
    variables: readonly { readonly name: string; readonly bytes: Uint8Array }[],
  ): Promise<void> {
    const failed: string[] = [];
    const records: VariableRecord[] = [];
    const pacing = this.#pacingFor(id);
    let sliceStart = performance.now();
    for (const { name, bytes } of variables) {
      try {
        const reading = readCheckpointBytes(bytes);
        let step = reading.next();
        while (!step.done) {
          if (performance.now() - sliceStart >= pacing.sliceMs) {
            await pacing.pause();
            sliceStart = performance.now();
          }
          step = reading.next();
        }
        records.push({ name, value: step.value, owner: 'model', readOnly: false, isConst: false });
      } catch {
        failed.push(name);
      }
    }
    this.#channel.reply(id, () => {
      for (const failure of this.#variables.set(records)) failed.push(failure.name);
      for (const { name, bytes } of variables) {
        if (!failed.includes(name)) {
          this.#checkpoints.restored(name, this.#variables.read(name), bytes);
        }
      }
      return failed;
    });
  }

  /**
   * Takes the checkpoint snapshots asked for, one after another, each in slices (see
   * {@link CheckpointVariables}), so that an `execute` sent meanwhile waits at most a slice: it
   * preempts them, and they answer `preempted` at once. A `request-progress` every
   * {@link snapshotProgressMs} tells the host the worker is alive.
   */
  async #takeSnapshots(): Promise<void> {
    for (let request = this.#requests[0]; request !== undefined; ) {
      const exclude = new Set(request.exclude);
      const variables: [string, unknown][] = [];
      for (const { name, cell } of this.#variables.listed()) {
        if (!exclude.has(name)) variables.push([name, cell?.v]);
      }
      const { id } = request;
      const snapshot = await this.#checkpoints.snapshot(variables, request, this.#pacingFor(id));
      // Preempted: every request waiting was answered then.
      if (snapshot === undefined || this.#requests[0] !== request) return;
      this.#requests.shift();
      const answer: WorkerMessage = { type: 'variables-snapshot', id, entries: snapshot.entries };
      this.#channel.postMoving(answer, snapshot.buffers);
      request = this.#requests[0];
    }
  }

  /**
   * Slices of work for request `id`: each pause lets waiting messages in, and every
   * {@link snapshotProgressMs} tells the host (`request-progress`) that the worker is alive.
   */
  #pacingFor(id: number): SnapshotPacing {
    let progressAt = performance.now();
    return {
      sliceMs: snapshotSliceMs,
      pause: () =>
        new Promise<void>((resolve) =>
          setImmediate(() => {
            if (performance.now() - progressAt >= snapshotProgressMs) {
              progressAt = performance.now();
              this.#channel.post({ type: 'request-progress', id });
            }
            resolve();
          }),
        ),
    };
  }
}
