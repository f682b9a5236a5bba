import type {
  ArtifactStore,
  CheckpointSummary,
  SerializedVariableInput,
} from '../../artifact-store.js';
import {
  planRestore,
  restoreInBackground,
  type UnrestoredVariable,
  unrestoredNote,
} from './background-restore.js';
import type { RunningCall } from '../feature.js';
import {
  type PrepareCheckpointOptions,
  type PreparedCheckpoint,
  prepareCheckpoint,
  type ResumeState,
  type SkippedVariable,
} from './checkpoints.js';
import { SnapshotPreemptedError } from '../../errors/index.js';
import type { Sandbox } from '../../sandbox.js';

/**
 * How far behind the run the newest checkpoint may fall while executions keep preempting the
 * snapshots after them (a model that answers faster than a large snapshot is taken); past it, the
 * next execution waits for the snapshot.
 */
export const defaultCheckpointMaxLagMs = 30_000;

/** What a {@link Checkpointer} reports; it never throws. */
export interface CheckpointerEvents {
  /** A checkpoint was saved; `durationMs` from the snapshot's start to the save's end. */
  saved(summary: CheckpointSummary, iteration: number, durationMs: number): void;
  /** Variables over the size cap, named but not saved. */
  skipped(variables: readonly SkippedVariable[]): void;
  /** The snapshot or the save failed: the previous checkpoint stays the newest. */
  failed(error: unknown): void;
  /** After a resume, variables the background restore could not bring back. */
  unrestored(variables: readonly UnrestoredVariable[]): void;
}

/** A checkpoint prepared, with when its snapshot started. */
interface StartedCheckpoint {
  readonly checkpoint: PreparedCheckpoint;
  readonly startedAt: number;
}

/**
 * `newer`, with the bytes `older` had for the variables `newer` marks unchanged: `older` will
 * not be saved, so those bytes would be in no stored blob. When an execution preempted `newer`,
 * `older` (that is still the newest state taken). Rejects as `newer` does otherwise.
 */
async function carryBytes(
  older: Promise<StartedCheckpoint>,
  newer: Promise<StartedCheckpoint>,
): Promise<StartedCheckpoint> {
  const started = await newer.catch((error: unknown) => {
    if (SnapshotPreemptedError.isInstance(error)) return undefined;
    throw error;
  });
  if (started === undefined) return older;
  const previous = (await older.catch(() => undefined))?.checkpoint;
  // `newer`'s variables are its own (see `prepareCheckpoint`): filled in place, in the work of
  // what `older` wrote, not of every variable.
  const items = started.checkpoint.input.serializedVariables ?? {};
  for (const [name, item] of Object.entries(previous?.input.serializedVariables ?? {})) {
    if (item.bytes === undefined) continue;
    const next = items[name];
    if (next !== undefined && next.bytes === undefined && next.digest === item.digest) {
      (items as Record<string, SerializedVariableInput>)[name] = item;
    }
  }
  return started;
}

/**
 * Takes a call's checkpoints off the critical path: {@link Checkpointer.start} snapshots the
 * variables (in the sandbox, which is idle while the next model call runs) and then saves, one
 * checkpoint after another, in order. Saves overlap the executions. The next execution need not
 * wait for the snapshot when the sandbox snapshots itself: it preempts a snapshot still being
 * taken (that checkpoint is dropped, silently, and the sandbox keeps what it made for the next),
 * unless the newest checkpoint taken is over {@link defaultCheckpointMaxLagMs} old; otherwise it waits
 * ({@link Checkpointer.snapshotTaken}). When steps come faster than saves,
 * a checkpoint still waiting for its save is replaced by the newer one (only the newest is
 * worth writing), which takes over the bytes it would have written. Remembers the digests of the last
 * snapshot so that unchanged variables are neither sent nor written again; after a failure it
 * forgets them, so the next checkpoint is written whole.
 */
export class Checkpointer {
  readonly #artifacts: ArtifactStore;
  readonly #events: CheckpointerEvents;
  readonly #maxLagMs: number;
  #digests: Readonly<Record<string, string>> = {};
  #snapshot: Promise<unknown> = Promise.resolve();
  #saves: Promise<void> = Promise.resolve();
  /** The newest checkpoint started whose save has not begun. */
  #waiting: Promise<StartedCheckpoint> | undefined;
  /** The last snapshot started, settled (never rejects). */
  #lastStarted: Promise<void> = Promise.resolve();
  /** When the last snapshot was taken (or this checkpointer made). */
  #takenAt = Date.now();
  #draining = false;
  #closed = false;
  #superseded = false;
  #restoreNote: string | undefined;

  /** @param maxLagMs see {@link defaultCheckpointMaxLagMs} (the default). */
  constructor(
    artifacts: ArtifactStore,
    events: CheckpointerEvents,
    maxLagMs = defaultCheckpointMaxLagMs,
  ) {
    this.#artifacts = artifacts;
    this.#events = events;
    this.#maxLagMs = maxLagMs;
  }

  /**
   * Continues from a checkpoint: its unchanged variables will not be rewritten, and its
   * sandbox-serialised variables are restored into `sandbox` in the background (their bytes
   * read from the store, then deserialised in the sandbox) while the model is asked for the
   * next step; {@link Checkpointer.snapshotTaken} waits for that restore. Returns the state as
   * the model should read it now; a variable the restore then fails to bring back is reported
   * to `unrestored` and in {@link Checkpointer.takeRestoreNote}.
   */
  resume(sandbox: Sandbox, state: ResumeState): ResumeState {
    this.#digests = state.serializedDigests;
    const planned = planRestore(state, sandbox);
    const restore = restoreInBackground({ sandbox, artifacts: this.#artifacts, state: planned });
    this.#snapshot = restore.then((lost) => {
      if (lost.length === 0) return;
      // Nothing holds these bytes now: a later snapshot must send them again if remade.
      const names = new Set(lost.map((variable) => variable.name));
      this.#digests = Object.fromEntries(
        Object.entries(this.#digests).filter(([name]) => !names.has(name)),
      );
      this.#restoreNote = unrestoredNote(lost);
      if (!this.#closed) this.#events.unrestored(lost);
    });
    return planned;
  }

  /**
   * Once, after a resume whose background restore lost variables: the note telling the model
   * which, to show with the first execution's output. `undefined` otherwise.
   */
  takeRestoreNote(): string | undefined {
    const note = this.#restoreNote;
    this.#restoreNote = undefined;
    return note;
  }

  /**
   * Starts a checkpoint of `call` as it is now. Returns at once; the snapshot begins before the
   * call changes again (its transcript is copied here and the sandbox handles the request
   * before any later execution).
   */
  start(call: RunningCall, options: Omit<PrepareCheckpointOptions, 'previousDigests'>): void {
    if (this.#closed) return;
    const startedAt = Date.now();
    const prepared = prepareCheckpoint(call, { ...options, previousDigests: this.#digests });
    const taken = prepared.then(
      (checkpoint) => {
        // The next snapshot compares with these; if this save fails, they are forgotten.
        this.#digests = checkpoint.digests;
        this.#takenAt = Date.now();
      },
      (error: unknown) => {
        // Preempted: nothing was taken, and the digests still hold.
        if (!SnapshotPreemptedError.isInstance(error)) this.#digests = {};
      },
    );
    // A sandbox that snapshots lets the next execution preempt the snapshot (see
    // `Sandbox.snapshotVariables`); until the newest checkpoint lags too far behind.
    const preemptible =
      call.workspace.sandbox.snapshotVariables !== undefined &&
      startedAt - this.#takenAt < this.#maxLagMs;
    if (!preemptible) this.#snapshot = taken;
    this.#lastStarted = taken;
    // A checkpoint still waiting for the save before it is replaced by this newer one, which
    // takes over the bytes it would have written.
    const started = prepared.then((checkpoint) => ({ checkpoint, startedAt }));
    this.#waiting = this.#waiting ? carryBytes(this.#waiting, started) : started;
    if (!this.#draining) this.#saves = this.#drain();
  }

  /** Saves the waiting checkpoint, one at a time, until none is waiting. */
  async #drain(): Promise<void> {
    this.#draining = true;
    try {
      for (let next = this.#waiting; next !== undefined; next = this.#waiting) {
        this.#waiting = undefined;
        await this.#save(next);
      }
    } finally {
      this.#draining = false;
    }
  }

  /**
   * Resolves once the next execution may start: after a resume the background restore has
   * finished, and a snapshot it may not preempt (see {@link defaultCheckpointMaxLagMs}) has been taken
   * (or failed). Never rejects.
   */
  snapshotTaken(): Promise<void> {
    return this.#snapshot.then(() => {});
  }

  /**
   * Resolves once every snapshot started has been taken, preempted or failed (at once when the
   * checkpoints were superseded: none is needed). Never rejects.
   */
  snapshotsSettled(): Promise<void> {
    if (this.#superseded) return Promise.resolve();
    return Promise.all([this.#snapshot, this.#lastStarted]).then(() => {});
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

  /**
   * The run is complete: no checkpoint is needed any more. Starts nothing more; a checkpoint
   * whose save has not begun is dropped; one being saved finishes (a save is never cut
   * half-way), unreported. {@link Checkpointer.saved} still resolves once nothing is being
   * written, so the store can be closed cleanly.
   */
  supersede(): void {
    this.#closed = true;
    this.#superseded = true;
    this.#waiting = undefined;
  }

  async #save(started: Promise<StartedCheckpoint>): Promise<void> {
    try {
      const { checkpoint, startedAt } = await started;
      if (this.#superseded) return;
      const tooLarge = checkpoint.skipped.filter((variable) => variable.tooLarge);
      if (tooLarge.length > 0 && !this.#closed) this.#events.skipped(tooLarge);
      const summary = await this.#artifacts.saveCheckpoint(checkpoint.input);
      if (!this.#superseded) {
        this.#events.saved(summary, checkpoint.input.iteration, Date.now() - startedAt);
      }
    } catch (error) {
      // An execution preempted the snapshot: the next checkpoint is taken after it.
      if (SnapshotPreemptedError.isInstance(error)) return;
      this.#digests = {};
      if (!this.#closed) this.#events.failed(error);
    }
  }
}
