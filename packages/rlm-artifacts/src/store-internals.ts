import type { ArtifactStore } from '@rlm/core';
import type { BlobStore } from './blob-store.js';
import { ArtifactStoreError } from './errors/artifact-store-error.js';
import type { LeaseRows } from './lease-rows.js';

/** The parts of a store from this package that maintenance functions reach. */
export interface StoreInternals {
  readonly blobs: BlobStore;
  readonly leases: LeaseRows;
}

/** Where a store from this package keeps its internals; shared by every copy of the package. */
export const storeInternals = Symbol.for('@rlm/artifacts/store-internals');

/** The internals of `store`; `ArtifactStoreError` for a store from elsewhere. */
export function internalsOf(store: ArtifactStore, use: string): StoreInternals {
  const internals = (store as ArtifactStore & { [storeInternals]?: StoreInternals })[
    storeInternals
  ];
  if (internals === undefined) {
    throw new ArtifactStoreError(
      `@rlm/artifacts: ${use} needs a store made by @rlm/artifacts (createSqliteArtifactStore, createMemoryArtifactStore or createArtifactStore)`,
    );
  }
  return internals;
}
