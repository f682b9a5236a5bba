import { statfs } from 'node:fs/promises';
import { ArtifactStoreError } from './errors/artifact-store-error.js';

/**
 * Refuses a write of `bytes` before it starts when the file system holding `directory` could
 * not take it and still leave room to work. A SQLite store in WAL mode holds new content twice
 * until a checkpoint (in the log, then in the database), and a disk filled by its own store can
 * no longer record checkpoints or even delete (deleting writes to the log too): so a write needs
 * twice its size plus `headroomBytes` free. Rejects with `ArtifactStoreError`; a file system that
 * cannot say its free space lets the write go ahead.
 */
export async function checkDiskSpace(
  directory: string,
  bytes: number,
  headroomBytes: number,
): Promise<void> {
  let free: number;
  try {
    const stats = await statfs(directory);
    free = stats.bavail * stats.bsize;
  } catch {
    return;
  }
  const needed = 2 * bytes + headroomBytes;
  if (needed <= free) return;
  throw new ArtifactStoreError(
    `@rlm/artifacts: the disk holding the store is too full to store ${formatSize(bytes)} (${formatSize(free)} free; a write needs twice its size plus ${formatSize(headroomBytes)}): free some space, or store less`,
  );
}

function formatSize(bytes: number): string {
  return bytes < 1_048_576
    ? `${Math.ceil(bytes / 1024)} KiB`
    : `${(bytes / 1_048_576).toFixed(1)} MiB`;
}
