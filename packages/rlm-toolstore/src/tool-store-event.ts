import type { FailureClass } from './classify-failure.js';
import type { ProgramSource } from './tool-call-outcome.js';

/**
 * One call of a tool method, logged by `recordOutcome` (fields as in seed 004's log schema).
 * The `artifact_*` fields describe the method file after the outcome was counted, and are
 * `null` when there is none.
 */
export interface ToolCallEvent {
  readonly type: 'tool_call';
  /** ISO 8601 time of the record. */
  readonly at: string;
  readonly role: string;
  readonly method: string;
  readonly ok: boolean;
  readonly program_source: ProgramSource;
  /** True when persisted code ran: no model call was needed. */
  readonly artifact_hit: boolean;
  readonly generation_id: string | null;
  readonly artifact_prompt_version: string | null;
  readonly artifact_contract_fingerprint: string | null;
  readonly artifact_success_count: number | null;
  readonly artifact_failure_count: number | null;
  readonly artifact_intrinsic_failure_count: number | null;
  readonly artifact_adaptive_failure_count: number | null;
  readonly artifact_extrinsic_failure_count: number | null;
  /** The trigger of the current generation, e.g. `repair:degraded`. */
  readonly artifact_generation_trigger: string | null;
  readonly repair_attempted: boolean;
  /** Whether the repaired code worked; `null` when no repair was attempted. */
  readonly repair_succeeded: boolean | null;
  readonly failure_class: FailureClass | null;
  /** The first line of the error, at most 500 characters. */
  readonly failure_reason: string | null;
  readonly duration_ms: number | null;
}

/** A file moved to `quarantine/`: unreadable, failing its checksum, or by an operator. */
export interface ToolQuarantineEvent {
  readonly type: 'tool_quarantine';
  readonly at: string;
  /** The file's path relative to the store root. */
  readonly file: string;
  /** Where it went, relative to the store root. */
  readonly quarantined_to: string;
  readonly reason: string;
}

/** A maintenance operation, for the audit trail. */
export interface ToolMaintenanceEvent {
  readonly type: 'tool_maintenance';
  readonly at: string;
  readonly action: 'archive' | 'restore' | 'bless';
  readonly role: string;
  /** The method, for `bless`; `null` for whole-tool actions. */
  readonly method: string | null;
  readonly detail: string;
}

/** Everything the store logs to `calls.jsonl` and hands to `onEvent`. */
export type ToolStoreEvent = ToolCallEvent | ToolQuarantineEvent | ToolMaintenanceEvent;
