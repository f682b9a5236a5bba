import { formatErrorLine } from '@rlm/core';
import { access } from 'node:fs/promises';
import type { ArtifactStore } from '@rlm/core';
import { UsageError } from '../usage-error.js';

/**
 * Opens the SQLite store at `storePath` for reading runs. A missing file is a usage error
 * (nothing is created), as is a file that does not open as a store.
 */
export async function openExistingStore(storePath: string): Promise<ArtifactStore> {
  try {
    await access(storePath);
  } catch {
    throw new UsageError(
      `no store at ${storePath}: no run was kept there yet; run a query first, or pass --store <file>`,
    );
  }
  try {
    const { createSqliteArtifactStore } = await import('@rlm/artifacts');
    return await createSqliteArtifactStore({ path: storePath });
  } catch (error) {
    const reason = formatErrorLine(error);
    throw new UsageError(`${reason}; pass --store <file> with an rlm store`, { cause: error });
  }
}
