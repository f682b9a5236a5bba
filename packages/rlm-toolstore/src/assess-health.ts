import { isRuntimeCompatible } from './is-runtime-compatible.js';
import type { MethodArtifact } from './method-artifact.js';
import type { ToolStorePolicy } from './tool-store-settings.js';

/**
 * The state of a persisted method, worst first:
 * - `runtime_incompatible`: written for a runtime this one cannot run: regenerate;
 * - `stale_contract`: written against another contract than the one now declared: repair;
 * - `input_drift`: its last counted failure was adaptive (input format changed): repair;
 * - `degraded`: `recent_failure_rate` at or above the policy's threshold: repair;
 * - `healthy`: run it.
 */
export type HealthStatus =
  | 'runtime_incompatible'
  | 'stale_contract'
  | 'input_drift'
  | 'degraded'
  | 'healthy';

/** What {@link assessHealth} found. */
export interface HealthAssessment {
  readonly status: HealthStatus;
  /** Repair attempts left before a full regeneration is due; 0 when the budget is spent. */
  readonly repairsLeft: number;
}

/** What a method is judged against. */
export interface HealthContext {
  /** The fingerprint of the contract now declared; unset skips the staleness check. */
  readonly contractFingerprint?: string;
  /** The runtime that would run the code; unset skips the compatibility check. */
  readonly runtimeVersion?: string;
  readonly policy: ToolStorePolicy;
}

/** Judges a persisted method. Pure. Extrinsic failures never enter into it. */
export function assessHealth(artifact: MethodArtifact, context: HealthContext): HealthAssessment {
  const repairsLeft = Math.max(
    0,
    context.policy.maxRepairsBeforeRegeneration - artifact.repair_count_since_regeneration,
  );
  return { status: healthStatus(artifact, context), repairsLeft };
}

function healthStatus(artifact: MethodArtifact, context: HealthContext): HealthStatus {
  if (
    context.runtimeVersion !== undefined &&
    !isRuntimeCompatible(artifact.runtime_version, context.runtimeVersion)
  ) {
    return 'runtime_incompatible';
  }
  if (
    context.contractFingerprint !== undefined &&
    artifact.contract_fingerprint !== context.contractFingerprint
  ) {
    return 'stale_contract';
  }
  if (artifact.input_drift_at !== null) return 'input_drift';
  if (artifact.recent_failure_rate >= context.policy.degradedFailureRate) return 'degraded';
  return 'healthy';
}
