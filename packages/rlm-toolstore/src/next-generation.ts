import type { DurableToolGeneration } from '@rlm/core';
import { codeChecksum } from './code-checksum.js';
import { contractFingerprint } from './contract-fingerprint.js';
import type { GenerationRecord, MethodArtifact } from './method-artifact.js';
import { zeroOutcomeCounts } from './outcome-counts.js';
import { toolStoreSchemaVersion } from './schema-version.js';
import type { ToolContract } from './tool-contract.js';

/** How a generation came about. */
export type GenerationKind = 'forge' | 'repair' | 'regenerate';

/**
 * The trigger recorded in a method's history: its kind, optionally with a reason, as in
 * `forge`, `repair:degraded` or `regenerate:repair_budget_exhausted`. A `repair` uses up one
 * repair of the budget; `forge` and `regenerate` start the budget over.
 */
export type GenerationTrigger = GenerationKind | `${GenerationKind}:${string}`;

/**
 * A new version of a method's code, as the loop hands it to `persistGeneration`: core's
 * `DurableToolGeneration` (code that has just worked, the contract it was written against, the
 * model that wrote it, the runtime), whose `trigger` may also carry a reason and whose
 * `parent` defaults to the method's current generation.
 */
export interface NewGeneration extends Omit<DurableToolGeneration, 'contract' | 'trigger'> {
  readonly contract: ToolContract;
  readonly trigger: GenerationTrigger;
}

/** How many generations a method file keeps in `history`. */
export const keptGenerations = 3;

/**
 * The method file after a new generation: new code, checksum, contract and versions; id
 * `gen-<n+1>`; history trimmed to the last {@link keptGenerations}; health started over;
 * lifetime counts carried on. A `repair` adds one to `repair_count_since_regeneration`;
 * anything else resets it to 0. Pure.
 */
export function nextGeneration(
  current: MethodArtifact | undefined,
  identity: { readonly role: string; readonly method: string },
  generation: NewGeneration,
  now: string,
): MethodArtifact {
  const kind = generation.trigger.split(':')[0];
  const number = Math.max(0, ...(current?.history ?? []).map(generationNumber)) + 1;
  const checksum = codeChecksum(generation.code);
  const record: GenerationRecord = {
    id: `gen-${number}`,
    parent_id:
      generation.parent !== undefined ? generation.parent : (current?.generation_id ?? null),
    trigger: generation.trigger,
    created_at: now,
    model: generation.model,
    code_checksum: checksum,
  };
  const repaired = kind === 'repair';
  return {
    schema_version: toolStoreSchemaVersion,
    role: identity.role,
    method_name: identity.method,
    contract: generation.contract,
    contract_fingerprint: contractFingerprint(generation.contract),
    prompt_version: generation.runtime.promptVersion,
    runtime_version: generation.runtime.runtimeVersion,
    model: generation.model,
    generation_id: record.id,
    code_checksum: checksum,
    code: generation.code,
    success_count: current?.success_count ?? zeroOutcomeCounts.success_count,
    failure_count: current?.failure_count ?? zeroOutcomeCounts.failure_count,
    intrinsic_failure_count:
      current?.intrinsic_failure_count ?? zeroOutcomeCounts.intrinsic_failure_count,
    adaptive_failure_count:
      current?.adaptive_failure_count ?? zeroOutcomeCounts.adaptive_failure_count,
    extrinsic_failure_count:
      current?.extrinsic_failure_count ?? zeroOutcomeCounts.extrinsic_failure_count,
    recent_failure_rate: 0,
    last_failure_reason: current?.last_failure_reason ?? null,
    last_failure_class: current?.last_failure_class ?? null,
    last_failure_at: current?.last_failure_at ?? null,
    input_drift_at: null,
    repair_count_since_regeneration: repaired
      ? (current?.repair_count_since_regeneration ?? 0) + 1
      : 0,
    created_at: current?.created_at ?? now,
    updated_at: now,
    last_used_at: current?.last_used_at ?? null,
    last_repaired_at: repaired ? now : (current?.last_repaired_at ?? null),
    blessed_at: null,
    history: [record, ...(current?.history ?? [])].slice(0, keptGenerations),
  };
}

function generationNumber(record: GenerationRecord): number {
  const match = /^gen-(\d+)$/.exec(record.id);
  return match ? Number(match[1]) : 0;
}
