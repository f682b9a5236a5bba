import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { ArtifactStore } from '@rlm/core';
import { entryVersion } from './entry-fields.js';
import { ArtifactStoreError } from './errors/artifact-store-error.js';
import { RunLeaseHeldError, type RunLeaseHolder } from './errors/run-lease-held-error.js';
import type { LeaseEntry } from './lease-entry.js';
import type { LeaseRows } from './lease-rows.js';
import { mayBeAlive } from './process-liveness.js';
import { internalsOf } from './store-internals.js';

/** Settings of {@link acquireRunLease}. */
export interface RunLeaseOptions {
  /** How often the holder renews its heartbeat, in milliseconds. Default 10,000. */
  readonly heartbeatIntervalMs?: number;
  /**
   * A lease whose heartbeat is older than this, in milliseconds, is stale and taken over, even
   * when its process may live (on another host, say). Default 60,000; keep it several times
   * `heartbeatIntervalMs`.
   */
  readonly staleAfterMs?: number;
  /**
   * Called once when a heartbeat finds that another process took the lease over (this one was
   * judged stale): stop writing the run.
   */
  readonly onLost?: (error: RunLeaseHeldError) => void;
}

/** One process's hold on a run; see {@link acquireRunLease}. */
export interface RunLease extends AsyncDisposable {
  readonly runKey: string;
  /** This holder: this process, this host, when it took the lease. */
  readonly holder: RunLeaseHolder;
  /** The stale holder this lease replaced, if it took one over. */
  readonly tookOverFrom: RunLeaseHolder | undefined;
  /** `false` once released, or once a heartbeat found the lease taken over. */
  readonly held: boolean;
  /** Stops the heartbeat and deletes the row if it is still this holder's. Idempotent; never rejects for a row already gone. */
  release(): Promise<void>;
}

const defaultHeartbeatIntervalMs = 10_000;
const defaultStaleAfterMs = 60_000;
/** Rounds of read-then-swap before giving up on a lease that changes under us each time. */
const maxAttempts = 10;

/**
 * Takes the run's lease (one writer per run): a lock row in the store with this process's id,
 * host name and a heartbeat renewed every `heartbeatIntervalMs` (on an unref'd timer). Rejects
 * with `RunLeaseHeldError` naming the holder when a live holder has it: another process, or
 * another lease in this one. A stale lease (its process dead on this host, or its heartbeat
 * older than `staleAfterMs`) is taken over. Atomic across processes on SQLite, within one process
 * on other Keyv stores. Release it with `release()` or `await using`. Needs a store made by this
 * package (any scoped view of it); otherwise rejects with `ArtifactStoreError`.
 */
export async function acquireRunLease(
  store: ArtifactStore,
  runKey: string,
  options: RunLeaseOptions = {},
): Promise<RunLease> {
  const rows = internalsOf(store, 'acquireRunLease').leases;
  const staleAfterMs = options.staleAfterMs ?? defaultStaleAfterMs;
  const now = Date.now();
  const mine: LeaseEntry = {
    kind: 'rlm.lease',
    version: entryVersion,
    runKey,
    token: randomBytes(8).toString('hex'),
    pid: process.pid,
    hostname: hostname(),
    acquiredAt: now,
    heartbeatAt: now,
  };
  for (let attempt = 0; attempt < maxAttempts; attempt += 1) {
    const current = await rows.read(runKey);
    if (current !== undefined && !isStale(current, staleAfterMs)) {
      throw heldError(current);
    }
    if (await rows.swap(runKey, current, mine)) {
      return new HeldLease(rows, mine, current, options);
    }
  }
  throw new ArtifactStoreError(
    `@rlm/artifacts: the lease of run ${runKey} changed ${maxAttempts} times while it was being taken; try again`,
  );
}

function isStale(lease: LeaseEntry, staleAfterMs: number): boolean {
  return Date.now() - lease.heartbeatAt > staleAfterMs || !mayBeAlive(lease.pid, lease.hostname);
}

function holderOf(lease: LeaseEntry): RunLeaseHolder {
  return {
    pid: lease.pid,
    hostname: lease.hostname,
    acquiredAt: lease.acquiredAt,
    heartbeatAt: lease.heartbeatAt,
  };
}

function heldError(lease: LeaseEntry): RunLeaseHeldError {
  const seconds = Math.max(0, Math.round((Date.now() - lease.heartbeatAt) / 1000));
  return new RunLeaseHeldError(
    `@rlm/artifacts: run ${lease.runKey} is being run by process ${lease.pid} on ${lease.hostname} (last heartbeat ${seconds} s ago); wait for it to end or stop it, then try again`,
    { runKey: lease.runKey, holder: holderOf(lease) },
  );
}

class HeldLease implements RunLease {
  readonly runKey: string;
  readonly holder: RunLeaseHolder;
  readonly tookOverFrom: RunLeaseHolder | undefined;
  readonly #rows: LeaseRows;
  readonly #onLost: ((error: RunLeaseHeldError) => void) | undefined;
  readonly #timer: NodeJS.Timeout;
  #row: LeaseEntry;
  #held = true;
  /** The heartbeat in flight, so release waits for it and ticks never overlap. */
  #beat: Promise<void> | undefined;

  constructor(
    rows: LeaseRows,
    row: LeaseEntry,
    replaced: LeaseEntry | undefined,
    options: RunLeaseOptions,
  ) {
    this.#rows = rows;
    this.#row = row;
    this.runKey = row.runKey;
    this.holder = holderOf(row);
    this.tookOverFrom = replaced === undefined ? undefined : holderOf(replaced);
    this.#onLost = options.onLost;
    this.#timer = setInterval(() => {
      this.#beat ??= this.#heartbeat().finally(() => {
        this.#beat = undefined;
      });
    }, options.heartbeatIntervalMs ?? defaultHeartbeatIntervalMs);
    this.#timer.unref();
  }

  get held(): boolean {
    return this.#held;
  }

  async #heartbeat(): Promise<void> {
    const next = { ...this.#row, heartbeatAt: Date.now() };
    let swapped: boolean;
    try {
      swapped = await this.#rows.swap(this.runKey, this.#row, next);
    } catch {
      // The store failed; the next tick tries again, and the run reports store failures itself.
      return;
    }
    if (swapped) {
      this.#row = next;
      return;
    }
    this.#held = false;
    clearInterval(this.#timer);
    const current = await this.#rows.read(this.runKey).catch(() => undefined);
    this.#onLost?.(heldError(current ?? this.#row));
  }

  async release(): Promise<void> {
    clearInterval(this.#timer);
    await this.#beat;
    if (!this.#held) return;
    this.#held = false;
    await this.#rows.swap(this.runKey, this.#row, undefined);
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.release();
  }
}
