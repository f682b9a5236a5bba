import type { DurableToolRuntime } from '@rlm/core';
import type { ToolStoreEvent } from './tool-store-event.js';
import type { FileLockOptions } from './with-file-lock.js';

/**
 * The versions a caller runs under, recorded in every generation it persists (core's
 * `DurableToolRuntime`): persisted code runs only under a compatible `runtimeVersion` (see
 * `isRuntimeCompatible`); `promptVersion` is recorded, never compared.
 */
export type ToolRuntime = DurableToolRuntime;

/** Thresholds of selection and repair. */
export interface ToolStorePolicy {
  /** Repair attempts allowed since the last full generation before regenerating. Default 3. */
  readonly maxRepairsBeforeRegeneration: number;
  /** `recent_failure_rate` at or above which a method is degraded. Default 0.5. */
  readonly degradedFailureRate: number;
  /**
   * Weight of the newest outcome in `recent_failure_rate` (an exponential moving average),
   * in (0, 1]. Default 0.25: from a clean record, three intrinsic or adaptive failures in a
   * row (0.25, 0.44, 0.58) cross the default threshold; one failure among successes does not.
   */
  readonly failureRateWeight: number;
}

/** Defaults of {@link ToolStorePolicy}. */
export const defaultToolStorePolicy: ToolStorePolicy = {
  maxRepairsBeforeRegeneration: 3,
  degradedFailureRate: 0.5,
  failureRateWeight: 0.25,
};

/**
 * Kill switches, for rollout and for incidents. With all defaults the store reads, repairs
 * and writes.
 */
export interface ToolStoreSwitches {
  /**
   * Use persisted code. When false every `select` answers `generate`
   * (`artifact_read_disabled`) while generations and counts are still written: shadow mode.
   * Default true.
   */
  readonly readArtifacts: boolean;
  /** When set, only these roles read persisted code (canary); others generate. */
  readonly readRoles?: readonly string[];
  /** Repair stale or degraded methods. When false they are regenerated. Default true. */
  readonly repair: boolean;
  /**
   * Behave as if there were no store: every `select` answers `generate` (`generation_only`)
   * and nothing is written except the call log. Default false.
   */
  readonly generationOnly: boolean;
}

/** Settings of `createToolStore`. All optional. */
export interface ToolStoreSettings {
  /** Directory of the store. Default `defaultToolStoreRoot()`. Created on first write. */
  readonly root?: string;
  readonly policy?: Partial<ToolStorePolicy>;
  readonly switches?: Partial<ToolStoreSwitches>;
  /** Lock timing, for tests and slow file systems. */
  readonly lock?: FileLockOptions;
  /** Append one JSON line per event to `<root>/calls.jsonl`. Default true. */
  readonly callLog?: boolean;
  /**
   * Called with every event, synchronously, after it is logged. Errors it throws are
   * swallowed: observability never breaks a call.
   */
  readonly onEvent?: (event: ToolStoreEvent) => void;
  /** The clock. Default `() => new Date()`. */
  readonly now?: () => Date;
}
