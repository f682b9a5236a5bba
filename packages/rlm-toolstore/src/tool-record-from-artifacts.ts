import type { MethodArtifact } from './method-artifact.js';
import { latestTimestamp, newToolRecord, type ToolRecord } from './registry.js';

/**
 * A registry entry rebuilt from a tool's method files, for when `registry.json` was lost or
 * damaged: the contract of the most recently updated method, every method, summed counts,
 * the earliest creation and the latest use. `usage_count` is the sum of the methods' calls.
 * `methods` must not be empty and must all belong to `role`.
 */
export function toolRecordFromArtifacts(
  role: string,
  methods: readonly MethodArtifact[],
  now: string,
): ToolRecord {
  const newest = [...methods].sort(
    (a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at),
  )[0]!;
  const base = newToolRecord(
    { role, contract: newest.contract, fingerprint: newest.contract_fingerprint },
    now,
  );
  const sum = (pick: (artifact: MethodArtifact) => number) =>
    methods.reduce((total, artifact) => total + pick(artifact), 0);
  const earliest = [...methods].sort(
    (a, b) => Date.parse(a.created_at) - Date.parse(b.created_at),
  )[0]!;
  return {
    ...base,
    methods: methods.map((artifact) => artifact.method_name).sort(),
    usage_count: sum((artifact) => artifact.success_count + artifact.failure_count),
    success_count: sum((artifact) => artifact.success_count),
    failure_count: sum((artifact) => artifact.failure_count),
    intrinsic_failure_count: sum((artifact) => artifact.intrinsic_failure_count),
    adaptive_failure_count: sum((artifact) => artifact.adaptive_failure_count),
    extrinsic_failure_count: sum((artifact) => artifact.extrinsic_failure_count),
    created_at: earliest.created_at,
    last_used_at: latestTimestamp(methods.map((artifact) => artifact.last_used_at)) ?? null,
  };
}
