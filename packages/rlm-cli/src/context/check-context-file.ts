import { stat } from 'node:fs/promises';
import { ContextLoadError } from '../context-load-error.js';

/**
 * Looks at a `--context` path before it is read: a FIFO is read (once a writer opens it), and
 * resolves `'fifo'` so the caller can say it waits; a character or block device is refused with
 * a `ContextLoadError`, as reading one may never end. Anything else (including a missing file,
 * which the loader reports) resolves `'file'`.
 */
export async function checkContextFile(file: string): Promise<'fifo' | 'file'> {
  const stats = await stat(file).catch(() => undefined);
  if (stats?.isFIFO()) return 'fifo';
  if (stats?.isCharacterDevice() || stats?.isBlockDevice()) {
    throw new ContextLoadError(
      `--context ${file} is a device, not a file; save its content to a file and pass that`,
      { path: file },
    );
  }
  return 'file';
}
