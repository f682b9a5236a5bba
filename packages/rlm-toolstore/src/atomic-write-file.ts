import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import path from 'node:path';

/**
 * Replaces `filePath` with `content` so that readers see the old file or the new one,
 * never a mix or a truncation: the content goes to a temporary file in the same directory
 * (`.<name>.<pid>.<random>.tmp`), is flushed to disk (`fsync`), then renamed over the
 * target; the directory is flushed too where the platform allows. On failure the temporary
 * file is removed and the target is untouched. The directory must exist.
 *
 * Atomic against crashes and concurrent readers, not against concurrent writers: callers
 * that read, modify and write hold a lock around it (see `withFileLock`).
 */
export async function atomicWriteFile(filePath: string, content: string): Promise<void> {
  const directory = path.dirname(filePath);
  const temporary = path.join(
    directory,
    `.${path.basename(filePath)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`,
  );
  try {
    const handle = await open(temporary, 'wx');
    try {
      await handle.writeFile(content, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, filePath);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  await syncDirectory(directory);
}

/** Flushes a directory entry to disk; a no-op where directories cannot be opened (Windows). */
async function syncDirectory(directory: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(directory, 'r');
    await handle.sync();
  } catch {
    // Best effort: the rename is already atomic; this only hardens it against power loss.
  } finally {
    await handle?.close();
  }
}
