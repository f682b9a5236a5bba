import type { ArtifactStore, createRLM } from '@rlm/core';
import { checkToolStoreDirectory } from '../../store/check-tool-store-directory.js';
import { ContextRoot } from '../../context/context-root.js';
import { loadCliContext } from '../../context/load-cli-context.js';
import type { LoadedContext } from '../../context/load-context.js';
import { loadToolsModule } from '../../rlm/load-tools-module.js';
import { openStore } from '../../store/open-store.js';
import type { BatchOptions } from './parse-batch-arguments.js';

/** What a batch of jobs run here (`rlm batch`, `rlm eval`) opens before they run. */
export interface BatchResources {
  /** `--context-root`: where a job's own context file or directory must lie. */
  readonly contextRoot: ContextRoot;
  /** `--context` or `--context-dir`: the context of every job without its own. */
  readonly context: LoadedContext | undefined;
  /** Host tools from `--tools`. */
  readonly tools: NonNullable<Parameters<typeof createRLM>[0]['tools']>;
  /** The artifact store (`--store`), `undefined` with `--no-store`; close it when done. */
  readonly store: ArtifactStore | undefined;
}

/**
 * Opens the context root (a bad one rejects before anything else), loads the batch's context and tools, opens the store (`--artifact-ttl` for Redis) and checks
 * the tool store, reporting skipped binary files on `stderr`. Rejects like each step does; the
 * store is closed again when a later step fails.
 */
export async function openBatchResources(
  options: BatchOptions,
  stderr: NodeJS.WritableStream,
): Promise<BatchResources> {
  const cli = options.run;
  const contextRoot = await ContextRoot.open(options.contextRoot);
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
  return { contextRoot, context, tools, store };
}
