import type { FailureClass } from './classify-failure.js';
import type { MethodArtifact } from './method-artifact.js';
import type { OutcomeCounts } from './outcome-counts.js';
import { newToolRecord, type ToolRecord } from './registry.js';
import type { ProgramSource } from './tool-call-outcome.js';
import type { ToolContract } from './tool-contract.js';
import type { ToolStorePolicy } from './tool-store-settings.js';

/** A call's outcome once classified. */
export interface ClassifiedOutcome {
  readonly ok: boolean;
  /** `null` for a success. */
  readonly failureClass: FailureClass | null;
  /** The error line; `null` for a success. */
  readonly failureReason: string | null;
  readonly programSource: ProgramSource;
  readonly generationId: string | undefined;
}

/**
 * A method file after one call, or `undefined` when the call does not concern it:
 * - the current generation ran: counts, `last_used_at`, failure fields and health move
 *   (extrinsic failures are counted but leave `recent_failure_rate` and drift alone);
 * - a repair was tried and failed without being persisted: one repair of the budget is
 *   spent, so failing repairs cannot loop forever;
 * - anything else (fresh code that failed, an older generation): unchanged.
 * Pure.
 */
export function applyOutcome(
  artifact: MethodArtifact,
  outcome: ClassifiedOutcome,
  now: string,
  policy: ToolStorePolicy,
): MethodArtifact | undefined {
  if (outcome.generationId !== artifact.generation_id) {
    if (outcome.programSource !== 'repaired' || outcome.ok) return undefined;
    return {
      ...artifact,
      repair_count_since_regeneration: artifact.repair_count_since_regeneration + 1,
      updated_at: now,
    };
  }
  const counted = { ...artifact, ...countOutcome(artifact, outcome.failureClass) };
  if (outcome.ok) {
    return {
      ...counted,
      recent_failure_rate: movingAverage(artifact.recent_failure_rate, 0, policy),
      input_drift_at: null,
      updated_at: now,
      last_used_at: now,
    };
  }
  const demotes = outcome.failureClass !== 'extrinsic';
  return {
    ...counted,
    recent_failure_rate: demotes
      ? movingAverage(artifact.recent_failure_rate, 1, policy)
      : artifact.recent_failure_rate,
    input_drift_at: outcome.failureClass === 'adaptive' ? now : artifact.input_drift_at,
    last_failure_reason: outcome.failureReason,
    last_failure_class: outcome.failureClass,
    last_failure_at: now,
    updated_at: now,
    last_used_at: now,
  };
}

/**
 * A tool's registry entry after one call of any of its methods, whatever produced the code:
 * the tool's track record as the model experienced it. Creates the entry when missing.
 */
export function applyToolOutcome(
  tool: ToolRecord | undefined,
  identity: {
    readonly role: string;
    readonly contract: ToolContract;
    readonly fingerprint: string;
  },
  outcome: ClassifiedOutcome,
  now: string,
): ToolRecord {
  const base = tool ?? newToolRecord(identity, now);
  return {
    ...base,
    ...countOutcome(base, outcome.failureClass),
    usage_count: base.usage_count + 1,
    updated_at: now,
    last_used_at: now,
  };
}

function countOutcome(counts: OutcomeCounts, failureClass: FailureClass | null): OutcomeCounts {
  return {
    success_count: counts.success_count + (failureClass === null ? 1 : 0),
    failure_count: counts.failure_count + (failureClass === null ? 0 : 1),
    intrinsic_failure_count:
      counts.intrinsic_failure_count + (failureClass === 'intrinsic' ? 1 : 0),
    adaptive_failure_count: counts.adaptive_failure_count + (failureClass === 'adaptive' ? 1 : 0),
    extrinsic_failure_count:
      counts.extrinsic_failure_count + (failureClass === 'extrinsic' ? 1 : 0),
  };
}

function movingAverage(previous: number, sample: 0 | 1, policy: ToolStorePolicy): number {
  const weight = policy.failureRateWeight;
  return Math.round(((1 - weight) * previous + weight * sample) * 1e6) / 1e6;
}
