import type { ArtifactStore, createRLM } from '@rlm/core';
import { checkToolStoreDirectory } from './check-tool-store-directory.js';
import { loadCliContext } from './load-cli-context.js';
import type { LoadedContext } from './load-context.js';
import { loadToolsModule } from './load-tools-module.js';
import { openStore } from './open-store.js';
import type { CliOptions } from './parse-arguments.js';
import { StoreFailureWatch } from './watch-store-failures.js';

/** What a batch (`rlm batch`, `rlm eval`) opens before its jobs run in this process. */
export interface BatchResources {
  /** `--context` or `--context-dir`: the context of every job without its own. */
  readonly context: LoadedContext | undefined;
  /** Host tools from `--tools`. */
  readonly tools: NonNullable<Parameters<typeof createRLM>[0]['tools']>;
  /** The artifact store (`--store`), `undefined` with `--no-store`; close it when done. */
  readonly store: ArtifactStore | undefined;
  /** Reports the store's failures on stderr; wrap the store with it before handing it to an RLM. */
  readonly watch: StoreFailureWatch;
}

/**
 * Loads the batch's context and tools, opens the store and checks the tool store, reporting
 * skipped binary files and store failures on `stderr` (`what` names the command in them).
 * Rejects like each step does; the store is closed again when a later step fails.
 */
export async function openBatchResources(
  cli: CliOptions,
  stderr: NodeJS.WritableStream,
  what: 'batch' | 'eval',
): Promise<BatchResources> {
  const context = await loadCliContext(cli, stderr);
  const tools = cli.toolsModule ? await loadToolsModule(cli.toolsModule) : [];
  const store = cli.storePath ? await openStore(cli.storePath) : undefined;
  try {
    if (cli.toolStore) await checkToolStoreDirectory(cli.toolStore, { writable: true });
  } catch (error) {
    await store?.close().catch(() => {});
    throw error;
  }
  const watch = new StoreFailureWatch((failure) => {
    stderr.write(
      `rlm: the store failed (${failure.operation}): ${failure.message}; the ${what} goes on, but what it stores from now may be lost\n`,
    );
  });
  return { context, tools, store, watch };
}
