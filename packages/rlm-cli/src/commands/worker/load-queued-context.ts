import type { ContextRoot } from '../../context/context-root.js';
import { loadContext } from '../../context/load-context.js';
import type { QueuedContext } from '../../queue/batch-queue-job.js';

/**
 * Loads a queued job's context on this machine, only from under `root`: the queue names the
 * paths, and whoever can write to it must not make the worker read its secrets.
 */
export async function loadQueuedContext(
  context: QueuedContext | undefined,
  maxBytes: number,
  root: ContextRoot,
): Promise<unknown> {
  if (context === undefined) return undefined;
  const loaded = await loadContext({ ...context, root, maxBytes });
  return loaded?.value;
}
