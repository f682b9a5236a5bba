import type {
  ArtifactStore,
  CheckpointSummary,
  SerializedVariableInput,
} from './artifact-store.js';
import {
  planRestore,
  restoreInBackground,
  type UnrestoredVariable,
  unrestoredNote,
} from './background-restore.js';
import type { RunningCall } from './loop/call-state.js';
import {
  type PrepareCheckpointOptions,
  type PreparedCheckpoint,
  prepareCheckpoint,
  type ResumeState,
  type SkippedVariable,
} from './checkpoints.js';
import type { Sandbox } from './sandbox.js';

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

/** A checkpoint started, waiting for the save before it to end. */
interface WaitingCheckpoint {
  readonly prepared: Promise<PreparedCheckpoint>;
  readonly iteration: number;
  readonly startedAt: number;
}

/**
 * `newer`, with the bytes `older` had for the variables `newer` marks unchanged: `older` will
 * not be saved, so those bytes would be in no stored blob. Rejects as `newer` does.
 */
async function carryBytes(
  older: Promise<PreparedCheckpoint>,
  newer: Promise<PreparedCheckpoint>,
): Promise<PreparedCheckpoint> {
  const next = await newer;
  const previous = await older.catch(() => undefined);
  const bytesByDigest = new Map<string, Uint8Array>();
  for (const item of Object.values(previous?.input.serializedVariables ?? {})) {
    if (item.bytes !== undefined) bytesByDigest.set(item.digest, item.bytes);
  }
  if (bytesByDigest.size === 0) return next;
  // Copied only if some variable needs bytes, and then once.
  let serializedVariables: Record<string, SerializedVariableInput> | undefined;
  const items = next.input.serializedVariables ?? {};
  for (const name in items) {
    const item = items[name] as SerializedVariableInput;
    if (item.bytes !== undefined) continue;
    const bytes = bytesByDigest.get(item.digest);
    if (bytes === undefined) continue;
    serializedVariables ??= { ...items };
    serializedVariables[name] = { digest: item.digest, bytes };
  }
  return serializedVariables === undefined
    ? next
    : { ...next, input: { ...next.input, serializedVariables } };
}

/**
 * Takes a call's checkpoints off the critical path: {@link Checkpointer.start} snapshots the
 * variables (in the sandbox, which is idle while the next model call runs) and then saves, one
 * checkpoint after another, in order. The next execution waits only for the snapshot
 * ({@link Checkpointer.snapshotTaken}); saves overlap it. When steps come faster than saves,
 * a checkpoint still waiting for its save is replaced by the newer one (only the newest is
 * worth writing), which takes over the bytes it would have written. Remembers the digests of the last
 * snapshot so that unchanged variables are neither sent nor written again; after a failure it
 * forgets them, so the next checkpoint is written whole.
 */
export class Checkpointer {
  readonly #artifacts: ArtifactStore;
  readonly #events: CheckpointerEvents;
  #digests: Readonly<Record<string, string>> = {};
  #snapshot: Promise<unknown> = Promise.resolve();
  #saves: Promise<void> = Promise.resolve();
  /** The newest checkpoint started whose save has not begun. */
  #waiting: WaitingCheckpoint | undefined;
  #draining = false;
  #closed = false;
  #superseded = false;
  #restoreNote: string | undefined;

  constructor(artifacts: ArtifactStore, events: CheckpointerEvents) {
    this.#artifacts = artifacts;
    this.#events = events;
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
    // A checkpoint still waiting for the save before it is replaced by this newer one, which
    // takes over the bytes it would have written.
    const waiting = this.#waiting;
    this.#waiting = {
      prepared: waiting ? carryBytes(waiting.prepared, prepared) : prepared,
      iteration,
      startedAt,
    };
    if (!this.#draining) this.#saves = this.#drain();
  }

  /** Saves the waiting checkpoint, one at a time, until none is waiting. */
  async #drain(): Promise<void> {
    this.#draining = true;
    try {
      for (let next = this.#waiting; next !== undefined; next = this.#waiting) {
        this.#waiting = undefined;
        await this.#save(next.prepared, next.iteration, next.startedAt);
      }
    } finally {
      this.#draining = false;
    }
  }

  /**
   * Resolves once the sandbox is free of checkpoint work: the last snapshot started has been
   * taken (or failed), and after a resume the background restore has finished. Never rejects.
   */
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

  async #save(
    prepared: Promise<PreparedCheckpoint>,
    iteration: number,
    startedAt: number,
  ): Promise<void> {
    try {
      const checkpoint = await prepared;
      if (this.#superseded) return;
      const tooLarge = checkpoint.skipped.filter((variable) => variable.tooLarge);
      if (tooLarge.length > 0 && !this.#closed) this.#events.skipped(tooLarge);
      const summary = await this.#artifacts.saveCheckpoint(checkpoint.input);
      if (!this.#superseded) this.#events.saved(summary, iteration, Date.now() - startedAt);
    } catch (error) {
      this.#digests = {};
      if (!this.#closed) this.#events.failed(error);
    }
  }
}
