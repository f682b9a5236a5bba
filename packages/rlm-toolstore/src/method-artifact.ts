import { isToolName } from './assert-tool-name.js';
import type { FailureClass } from './classify-failure.js';
import {
  arrayOf,
  type Check,
  firstProblem,
  isCount,
  isRate,
  isRecord,
  isString,
  isTimestamp,
  orNull,
} from './json-checks.js';
import type { OutcomeCounts } from './outcome-counts.js';
import type { ToolContract } from './tool-contract.js';

/** One entry of a method's lineage. */
export interface GenerationRecord {
  /** `gen-<n>`, counting up per method from `gen-1`. */
  readonly id: string;
  /** The generation this one replaced or repaired; `null` for the first. */
  readonly parent_id: string | null;
  /** `forge`, `repair` or `regenerate`, with an optional `:<reason>`, e.g. `repair:degraded`. */
  readonly trigger: string;
  readonly created_at: string;
  /** The model that wrote the code. */
  readonly model: string;
  readonly code_checksum: string;
}

/**
 * The content of `tools/<role>/<method>.json`: the current code of one method, where it
 * came from, and how it has done. Counts are kept over the method's whole life (reset only
 * by `bless --reset-metrics`); the health fields (`recent_failure_rate`, `input_drift_at`)
 * start over with every generation. Timestamps are ISO 8601 strings in UTC.
 */
export interface MethodArtifact extends OutcomeCounts {
  readonly schema_version: number;
  readonly role: string;
  readonly method_name: string;
  /** The contract the code was written (or blessed) against, verbatim. */
  readonly contract: ToolContract;
  readonly contract_fingerprint: string;
  /** Version of the prompt that produced the code: informative, never a lookup key. */
  readonly prompt_version: string;
  /** Version of the runtime the code was written for; see `isRuntimeCompatible`. */
  readonly runtime_version: string;
  readonly model: string;
  /** The current generation, equal to `history[0].id`. */
  readonly generation_id: string;
  /** `codeChecksum(code)`; a file whose code does not match is quarantined. */
  readonly code_checksum: string;
  /** The code, run by the loop in its sandbox with no more trust than fresh code. */
  readonly code: string;
  /**
   * Exponential moving average of failures over recent calls of the current generation:
   * a success pushes it toward 0, an intrinsic or adaptive failure toward 1; extrinsic
   * failures leave it alone. Above the policy's threshold the method is degraded.
   */
  readonly recent_failure_rate: number;
  readonly last_failure_reason: string | null;
  readonly last_failure_class: FailureClass | null;
  readonly last_failure_at: string | null;
  /** Set by an adaptive failure of the current generation, cleared by a success. */
  readonly input_drift_at: string | null;
  /** Repair attempts since the last full generation; bounded by the repair budget. */
  readonly repair_count_since_regeneration: number;
  readonly created_at: string;
  readonly updated_at: string;
  readonly last_used_at: string | null;
  readonly last_repaired_at: string | null;
  readonly blessed_at: string | null;
  /** The last three generations, newest first. */
  readonly history: readonly GenerationRecord[];
}

/** What loading a method file found. */
export type ArtifactLoad =
  | { readonly status: 'found'; readonly artifact: MethodArtifact }
  | { readonly status: 'missing' }
  /** Written by another version of the store: left in place, regenerated on next use. */
  | { readonly status: 'schema_version_mismatch'; readonly schemaVersion: unknown }
  /** The file was unreadable or its code did not match its checksum; it was moved away. */
  | {
      readonly status: 'quarantined';
      readonly problem: 'corrupt' | 'checksum_mismatch';
      readonly detail: string;
      /** Where the file went, under `<root>/quarantine/`. */
      readonly quarantinedTo: string;
    };

const isFailureClass: Check = (value) =>
  value === 'intrinsic' || value === 'adaptive' || value === 'extrinsic';

const generationChecks: Readonly<Record<keyof GenerationRecord, Check>> = {
  id: isString,
  parent_id: orNull(isString),
  trigger: isString,
  created_at: isTimestamp,
  model: isString,
  code_checksum: isString,
};

const isGenerationRecord: Check = (value) =>
  isRecord(value) && firstProblem(value, generationChecks) === undefined;

const artifactChecks: Readonly<Record<keyof MethodArtifact, Check>> = {
  schema_version: isCount,
  role: isToolName,
  method_name: isToolName,
  contract: isRecord,
  contract_fingerprint: isString,
  prompt_version: isString,
  runtime_version: isString,
  model: isString,
  generation_id: isString,
  code_checksum: isString,
  code: isString,
  success_count: isCount,
  failure_count: isCount,
  intrinsic_failure_count: isCount,
  adaptive_failure_count: isCount,
  extrinsic_failure_count: isCount,
  recent_failure_rate: isRate,
  last_failure_reason: orNull(isString),
  last_failure_class: orNull(isFailureClass),
  last_failure_at: orNull(isTimestamp),
  input_drift_at: orNull(isTimestamp),
  repair_count_since_regeneration: isCount,
  created_at: isTimestamp,
  updated_at: isTimestamp,
  last_used_at: orNull(isTimestamp),
  last_repaired_at: orNull(isTimestamp),
  blessed_at: orNull(isTimestamp),
  history: (value) => arrayOf(isGenerationRecord)(value) && (value as unknown[]).length > 0,
};

/**
 * What is wrong with a parsed method file of the current schema version that should hold
 * `role.method`, or `undefined` when it is sound (shape, identity, `history[0]` matching the
 * current generation). The code checksum is verified separately.
 */
export function findArtifactProblem(
  value: Record<string, unknown>,
  role: string,
  method: string,
): string | undefined {
  const problem = firstProblem(value, artifactChecks);
  if (problem !== undefined) return problem;
  const artifact = value as unknown as MethodArtifact;
  if (artifact.role !== role || artifact.method_name !== method) {
    return `holds ${artifact.role}.${artifact.method_name}, not ${role}.${method}`;
  }
  if (artifact.history[0]?.id !== artifact.generation_id) {
    return 'generation_id does not match the newest history entry';
  }
  return undefined;
}
