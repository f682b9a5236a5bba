import type { DurableToolSummary } from '@rlm/core';
import { isToolName } from './assert-tool-name.js';
import { type RankToolsOptions, rankTools } from './rank-tools.js';
import type { Registry, ToolRecord } from './registry.js';

/**
 * The registry's tools as the loop's known-tools list: best first by `rankTools` (success rate
 * x recency), each summarised (role, methods, purpose, calls, share of judged calls that
 * succeeded). Tools whose role or method names are not valid tool names (a hand-edited
 * registry) are left out. Pure: `@rlm/core` bounds the list and writes the prompt text.
 */
export function knownToolsOf(
  registry: Registry,
  options: RankToolsOptions = {},
): DurableToolSummary[] {
  return rankTools(registry, options)
    .filter(({ tool }) => isToolName(tool.role) && tool.methods.every(isToolName))
    .map(({ tool }) => summary(tool));
}

function summary(tool: ToolRecord): DurableToolSummary {
  const purpose: unknown = tool.contract.purpose;
  const judged = tool.success_count + tool.intrinsic_failure_count + tool.adaptive_failure_count;
  return {
    role: tool.role,
    methods: tool.methods,
    purpose: typeof purpose === 'string' ? purpose : '',
    calls: tool.usage_count,
    ...(judged === 0 ? {} : { successRate: tool.success_count / judged }),
  };
}
