import type { ArtifactStore } from '@rlm/core';
import { UsageError } from './usage-error.js';

/** Opens the SQLite artifact store; a failure is a usage error naming the flags to change it. */
export async function openStore(storePath: string): Promise<ArtifactStore> {
  try {
    // Loaded on demand: SQLite's native module is not needed (or even present) with --no-store.
    const { createSqliteArtifactStore } = await import('@rlm/artifacts');
    return await createSqliteArtifactStore({ path: storePath });
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^@rlm\/artifacts: /, '') : '';
    throw new UsageError(`${reason}; pass --store <file> or --no-store`, { cause: error });
  }
}
