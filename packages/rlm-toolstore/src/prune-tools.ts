import { type InspectToolsOptions, inspectTools, type ToolReport } from './inspect-tools.js';
import type { ArchivedTool, ToolStore } from './tool-store.js';

/** Options of {@link pruneTools}. */
export interface PruneToolsOptions extends InspectToolsOptions {
  /** Only report what would be archived. */
  readonly dryRun?: boolean;
}

/** What {@link pruneTools} found and did. */
export interface PruneResult {
  /** Tools inactive for longer than the retention window. */
  readonly candidates: readonly ToolReport[];
  /** The archives made; empty on a dry run. */
  readonly archived: readonly ArchivedTool[];
}

/**
 * Archives every tool inactive for longer than `pruneAfterDays` (default 90), reversibly:
 * `store.restoreTool(role)` brings one back. Ranking already pushes idle tools out of the
 * prompt; pruning only keeps the store small.
 */
export async function pruneTools(
  store: ToolStore,
  options: PruneToolsOptions = {},
): Promise<PruneResult> {
  const candidates = (await inspectTools(store, options)).filter((report) => report.unused);
  const archived: ArchivedTool[] = [];
  if (!options.dryRun) {
    for (const report of candidates) archived.push(await store.archiveTool(report.role));
  }
  return { candidates, archived };
}
