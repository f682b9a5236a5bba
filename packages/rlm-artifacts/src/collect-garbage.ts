import type { ArtifactStore } from '@rlm/core';
import type { GarbageCollected } from './blob-store.js';
import { internalsOf } from './store-internals.js';

export type { GarbageCollected } from './blob-store.js';

/** Settings of {@link collectGarbage}. */
export interface CollectGarbageOptions {
  /**
   * An unfinished blob write older than this, in milliseconds, is abandoned even when its
   * process may live (on another host, or a reused pid). Default 3,600,000 (an hour).
   */
  readonly staleAfterMs?: number;
}

/**
 * Reclaims what failed or killed blob writes left behind: their chunks and upload markers.
 * Committed blobs, records and checkpoints are never touched, and writes still running (a live
 * process on this host, or younger than `staleAfterMs`) are left alone, so it is safe while
 * other processes use the store. Idempotent: a second call frees nothing. On SQLite the freed
 * pages are reused by later writes; the file does not shrink. Needs a store made by this
 * package; otherwise rejects with `ArtifactStoreError`.
 */
export function collectGarbage(
  store: ArtifactStore,
  options: CollectGarbageOptions = {},
): Promise<GarbageCollected> {
  return internalsOf(store, 'collectGarbage').blobs.collectGarbage({
    staleAfterMs: options.staleAfterMs ?? 3_600_000,
  });
}
