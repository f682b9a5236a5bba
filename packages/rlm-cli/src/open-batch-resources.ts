import type { ArtifactStore, createRLM } from '@rlm/core';
import { checkToolStoreDirectory } from './check-tool-store-directory.js';
import { loadCliContext } from './load-cli-context.js';
import type { LoadedContext } from './load-context.js';
import { loadToolsModule } from './load-tools-module.js';
import { openStore } from './open-store.js';
import type { BatchOptions } from './parse-batch-arguments.js';

/** What a batch of jobs run here (`rlm eval`) opens before they run. */
export interface BatchResources {
  /** `--context` or `--context-dir`: the context of every job without its own. */
  readonly context: LoadedContext | undefined;
  /** Host tools from `--tools`. */
  readonly tools: NonNullable<Parameters<typeof createRLM>[0]['tools']>;
  /** The artifact store (`--store`), `undefined` with `--no-store`; close it when done. */
  readonly store: ArtifactStore | undefined;
}

/**
 * Loads the batch's context and tools, opens the store (`--artifact-ttl` for Redis) and checks
 * the tool store, reporting skipped binary files on `stderr`. Rejects like each step does; the
 * store is closed again when a later step fails.
 */
export async function openBatchResources(
  options: BatchOptions,
  stderr: NodeJS.WritableStream,
): Promise<BatchResources> {
  const cli = options.run;
  const context = await loadCliContext(cli, stderr);
  const tools = cli.toolsModule ? await loadToolsModule(cli.toolsModule) : [];
  const store = cli.storePath
    ? await openStore(cli.storePath, {
        connectTimeoutMs: cli.connectTimeoutMs,
        ...(options.artifactTtlMs === undefined ? {} : { ttlMs: options.artifactTtlMs }),
      })
    : undefined;
  try {
    if (cli.toolStore) await checkToolStoreDirectory(cli.toolStore, { writable: true });
  } catch (error) {
    await store?.close().catch(() => {});
    throw error;
  }
  return { context, tools, store };
}
