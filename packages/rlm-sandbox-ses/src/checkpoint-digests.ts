/**
 * The host's side of checkpoint snapshots: the digests the worker last reported, so that
 * digests it already has need not cross again, and the entries it sends completed.
 */
import { SandboxError, type VariableSnapshotEntry } from '@rlm/core';
import type { WorkerSnapshotEntry } from './worker-protocol.js';

export class CheckpointDigests {
  /** The digests the worker's last checkpoint snapshot reported. */
  #reported: ReadonlyMap<string, string> | undefined;
  #inFlight = 0;

  /**
   * Starts a snapshot: what to send the worker as its previous digests. Digests equal to those
   * the worker last reported need not cross again (they grow with the variables); only while
   * no other snapshot is in flight, whose answer would change them.
   */
  begin(previousDigests: Readonly<Record<string, string>>): 'as-reported' | Record<string, string> {
    const reported = this.#inFlight === 0 ? this.#reported : undefined;
    this.#inFlight += 1;
    this.#reported = undefined;
    return reported !== undefined && sameDigests(previousDigests, reported)
      ? 'as-reported'
      : { ...previousDigests };
  }

  /** The worker's answer to the snapshot begun, completed (see {@link fromWorker}). */
  complete(
    sent: readonly WorkerSnapshotEntry[],
    previousDigests: Readonly<Record<string, string>>,
  ): VariableSnapshotEntry[] {
    const entries = sent.map((entry) => fromWorker(entry, previousDigests));
    if (this.#inFlight === 1) this.#reported = reportedDigestsOf(entries);
    return entries;
  }

  /** Ends the snapshot begun, answered or not. */
  end(): void {
    this.#inFlight -= 1;
  }

  /** The worker is gone: what it reported no longer holds. */
  forget(): void {
    this.#reported = undefined;
  }
}

/**
 * A snapshot entry as the worker sent it, completed: an unchanged one's digest is the one the
 * host sent, a saved one's bytes are joined into one array.
 */
function fromWorker(
  entry: WorkerSnapshotEntry,
  previousDigests: Readonly<Record<string, string>>,
): VariableSnapshotEntry {
  if (entry.state === 'unchanged') {
    const digest = previousDigests[entry.name];
    if (digest === undefined) {
      throw new SandboxError(
        `@rlm/sandbox-ses: the worker found ${entry.name} unchanged, but no digest was sent for it`,
      );
    }
    return { name: entry.name, state: 'unchanged', digest };
  }
  if (entry.state !== 'saved') return entry;
  const { parts } = entry;
  let bytes = parts[0] ?? new Uint8Array(0);
  if (parts.length > 1) {
    bytes = new Uint8Array(parts.reduce((total, part) => total + part.byteLength, 0));
    let offset = 0;
    for (const part of parts) {
      bytes.set(part, offset);
      offset += part.byteLength;
    }
  }
  return { name: entry.name, state: 'saved', bytes, digest: entry.digest };
}

/** The digest of each entry a checkpoint snapshot saved or found unchanged. */
function reportedDigestsOf(entries: readonly VariableSnapshotEntry[]): Map<string, string> {
  const digests = new Map<string, string>();
  for (const entry of entries) if (entry.state !== 'skipped') digests.set(entry.name, entry.digest);
  return digests;
}

/** Whether `digests` holds exactly the names and digests of `reported`. */
function sameDigests(
  digests: Readonly<Record<string, string>>,
  reported: ReadonlyMap<string, string>,
): boolean {
  let count = 0;
  for (const name in digests) {
    if (!Object.hasOwn(digests, name) || reported.get(name) !== digests[name]) return false;
    count += 1;
  }
  return count === reported.size;
}
