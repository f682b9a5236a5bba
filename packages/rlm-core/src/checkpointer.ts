import type { ArtifactStore, CheckpointSummary } from './artifact-store.js';
import type { RunningCall } from './loop/call-state.js';
import {
  type PrepareCheckpointOptions,
  type PreparedCheckpoint,
  prepareCheckpoint,
  type SkippedVariable,
} from './checkpoints.js';

/** What a {@link Checkpointer} reports; it never throws. */
export interface CheckpointerEvents {
  /** A checkpoint was saved; `durationMs` from the snapshot's start to the save's end. */
  saved(summary: CheckpointSummary, iteration: number, durationMs: number): void;
  /** Variables over the size cap, named but not saved. */
  skipped(variables: readonly SkippedVariable[]): void;
  /** The snapshot or the save failed: the previous checkpoint stays the newest. */
  failed(error: unknown): void;
}

/**
 * Takes a call's checkpoints off the critical path: {@link Checkpointer.start} snapshots the
 * variables (in the sandbox, which is idle while the next model call runs) and then saves, one
 * checkpoint after another, in order. The next execution waits only for the snapshot
 * ({@link Checkpointer.snapshotTaken}); saves overlap it. Remembers the digests of the last
 * snapshot so that unchanged variables are neither sent nor written again; after a failure it
 * forgets them, so the next checkpoint is written whole.
 */
export class Checkpointer {
  readonly #artifacts: ArtifactStore;
  readonly #events: CheckpointerEvents;
  #digests: Readonly<Record<string, string>> = {};
  #snapshot: Promise<unknown> = Promise.resolve();
  #saves: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(artifacts: ArtifactStore, events: CheckpointerEvents) {
    this.#artifacts = artifacts;
    this.#events = events;
  }

  /** Digests of the checkpoint a run resumed from: its unchanged variables are not rewritten. */
  resumeFrom(digests: Readonly<Record<string, string>>): void {
    this.#digests = digests;
  }

  /**
   * Starts a checkpoint of `call` as it is now. Returns at once; the snapshot begins before the
   * call changes again (its transcript is copied here and the sandbox handles the request
   * before any later execution).
   */
  start(call: RunningCall, options: Omit<PrepareCheckpointOptions, 'previousDigests'>): void {
    if (this.#closed) return;
    const startedAt = Date.now();
    const iteration = call.iteration;
    const prepared = prepareCheckpoint(call, { ...options, previousDigests: this.#digests });
    this.#snapshot = prepared.then(
      (checkpoint) => {
        // The next snapshot compares with these; if this save fails, they are forgotten.
        this.#digests = checkpoint.digests;
      },
      () => {
        this.#digests = {};
      },
    );
    this.#saves = this.#saves.then(() => this.#save(prepared, iteration, startedAt));
  }

  /** Resolves once the last snapshot started has been taken (or failed). Never rejects. */
  snapshotTaken(): Promise<void> {
    return this.#snapshot.then(() => {});
  }

  /** Resolves once every checkpoint started has been saved (or failed). Never rejects. */
  saved(): Promise<void> {
    return this.#saves;
  }

  /**
   * Starts nothing more. Checkpoints in flight finish; their failures (a sandbox disposed
   * mid-snapshot, say) are no longer reported, their saves still are.
   */
  close(): void {
    this.#closed = true;
  }

  async #save(
    prepared: Promise<PreparedCheckpoint>,
    iteration: number,
    startedAt: number,
  ): Promise<void> {
    try {
      const checkpoint = await prepared;
      const tooLarge = checkpoint.skipped.filter((variable) => variable.tooLarge);
      if (tooLarge.length > 0 && !this.#closed) this.#events.skipped(tooLarge);
      const summary = await this.#artifacts.saveCheckpoint(checkpoint.input);
      this.#events.saved(summary, iteration, Date.now() - startedAt);
    } catch (error) {
      this.#digests = {};
      if (!this.#closed) this.#events.failed(error);
    }
  }
}
