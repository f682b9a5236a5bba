import { KeyedLock } from './keyed-lock.js';
import type { KeyvEntries } from './keyv-entries.js';
import { decodeLeaseEntry, type LeaseEntry, leaseKey } from './lease-entry.js';

/**
 * Where run leases live, with one atomic step: {@link LeaseRows.swap}. The SQLite store swaps
 * in one SQL statement (atomic across processes); {@link KeyvLeaseRows} serves every other
 * Keyv store.
 */
export interface LeaseRows {
  /** The run's lease row, or `undefined` when nobody holds it. */
  read(runKey: string): Promise<LeaseEntry | undefined>;
  /**
   * Replaces the run's row by `next` (`undefined`: deletes it) only when the row is still
   * `expected` (same token and heartbeat; `undefined`: no row). Resolves whether it did.
   */
  swap(
    runKey: string,
    expected: LeaseEntry | undefined,
    next: LeaseEntry | undefined,
  ): Promise<boolean>;
}

/**
 * Lease rows in any Keyv store, through reads and writes serialised within this process: atomic
 * for one process (the memory store), best effort across processes sharing a backend that is
 * not SQLite.
 */
export class KeyvLeaseRows implements LeaseRows {
  readonly #index: KeyvEntries;
  readonly #lock = new KeyedLock();

  constructor(index: KeyvEntries) {
    this.#index = index;
  }

  read(runKey: string): Promise<LeaseEntry | undefined> {
    return this.#index.read(leaseKey(runKey), decodeLeaseEntry);
  }

  swap(
    runKey: string,
    expected: LeaseEntry | undefined,
    next: LeaseEntry | undefined,
  ): Promise<boolean> {
    const key = leaseKey(runKey);
    return this.#lock.run(key, async () => {
      const current = await this.#index.read(key, decodeLeaseEntry);
      if (!sameLease(current, expected)) return false;
      if (next === undefined) await this.#index.delete(key);
      else await this.#index.write(key, next);
      return true;
    });
  }
}

function sameLease(a: LeaseEntry | undefined, b: LeaseEntry | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.token === b.token && a.heartbeatAt === b.heartbeatAt;
}
