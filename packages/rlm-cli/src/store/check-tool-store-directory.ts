import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ToolStoreChoice } from './resolve-tool-store.js';
import { UsageError } from '../usage-error.js';

/**
 * Checks the durable tool store's directory before a run: it must be a directory (created when
 * missing) that this process can write, found by writing and removing a probe file. With
 * `writable: false` (the read-mostly `rlm tools` commands) only an existing non-directory is
 * refused. Throws a {@link UsageError} with one line naming the setting that chose it
 * (`--toolstore`, `RLM_TOOLSTORE`, or the project's default beside the artifact store).
 */
export async function checkToolStoreDirectory(
  store: ToolStoreChoice,
  options: { readonly writable: boolean },
): Promise<void> {
  const { root } = store;
  const where =
    store.source === 'default'
      ? `the project's tool store ${root} (beside the artifact store; choose another with --toolstore <dir>)`
      : `${store.source} ${root}`;
  const stats = await stat(root).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw new UsageError(`${where} cannot be read (${error.code ?? error.message})`, {
      cause: error,
    });
  });
  if (stats !== undefined && !stats.isDirectory()) {
    throw new UsageError(
      `${where} is not a directory; pass a directory (it is created if missing)`,
    );
  }
  if (!options.writable) return;
  const probe = path.join(root, `.rlm-write-check-${process.pid}`);
  try {
    await mkdir(root, { recursive: true });
    await writeFile(probe, '');
    await rm(probe, { force: true });
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new UsageError(`${where} is not writable (${reason}); pass a directory you can write`, {
      cause: error,
    });
  }
}
