import type { ArtifactStore } from '@rlm/core';
import { Keyv } from 'keyv';
import { createArtifactStore } from './create-artifact-store.js';

/** Settings of {@link createMemoryArtifactStore}. */
export interface MemoryArtifactStoreSettings {
  /** The scope named records live in. Default `'default'`. */
  readonly scope?: string;
}

/** An `ArtifactStore` in memory, for tests and throwaway runs: gone when the process ends. */
export function createMemoryArtifactStore(
  settings: MemoryArtifactStoreSettings = {},
): ArtifactStore {
  return createArtifactStore({
    keyv: new Keyv({ store: new Map(), namespace: 'rlm', throwOnErrors: true }),
    blobKeyv: new Keyv({ store: new Map(), namespace: 'rlm', throwOnErrors: true }),
    ...(settings.scope === undefined ? {} : { scope: settings.scope }),
  });
}
