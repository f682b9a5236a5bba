import { successRate } from './outcome-counts.js';
import { type Registry, type ToolRecord, toolLastActivity } from './registry.js';

/**
 * Half-life of the recency factor, in days: a tool last active a week ago weighs half as
 * much as one active now, two weeks a quarter. Long enough that a weekly task's tools stay
 * visible, short enough that a burst of last month's tools gives way to this week's.
 */
export const defaultRecencyHalfLifeDays = 7;

/** One tool with its utility score. */
export interface RankedTool {
  readonly tool: ToolRecord;
  /** `successRate * recency`, in (0, 1]. */
  readonly score: number;
  /** Smoothed success rate, extrinsic failures ignored (see `successRate`). */
  readonly successRate: number;
  /** `0.5 ** (days since last activity / half-life)`, in (0, 1]. */
  readonly recency: number;
}

/** Options of {@link rankTools}. */
export interface RankToolsOptions {
  /** Default: the current time. */
  readonly now?: Date;
  /** Default {@link defaultRecencyHalfLifeDays}. */
  readonly halfLifeDays?: number;
}

/**
 * The registry's tools by utility, best first: `successRate * recency`, where recency halves
 * every `halfLifeDays` since the tool was last active (see `toolLastActivity`; activity in
 * the future counts as now). Ties go to the more used tool, then by role. Pure.
 */
export function rankTools(registry: Registry, options: RankToolsOptions = {}): RankedTool[] {
  const now = (options.now ?? new Date()).getTime();
  const halfLifeMs = (options.halfLifeDays ?? defaultRecencyHalfLifeDays) * 86_400_000;
  return Object.values(registry.tools)
    .map((tool) => {
      const age = Math.max(0, now - Date.parse(toolLastActivity(tool)));
      const recency = 0.5 ** (age / halfLifeMs);
      const rate = successRate(tool);
      return { tool, score: rate * recency, successRate: rate, recency };
    })
    .sort(
      (a, b) =>
        b.score - a.score ||
        b.tool.usage_count - a.tool.usage_count ||
        (a.tool.role < b.tool.role ? -1 : a.tool.role > b.tool.role ? 1 : 0),
    );
}
