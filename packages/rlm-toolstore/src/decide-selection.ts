import { assessHealth } from './assess-health.js';
import type { ArtifactLoad, MethodArtifact } from './method-artifact.js';
import type { ToolStorePolicy } from './tool-store-settings.js';

/** Why persisted code is to be repaired before it runs. */
export type RepairReason = 'stale_contract' | 'input_drift' | 'degraded';

/** Why new code is to be written from the contract. */
export type GenerateReason =
  /** No method file. */
  | 'missing'
  /** The file was unreadable and was quarantined. */
  | 'corrupt'
  /** The code did not match its checksum; the file was quarantined. */
  | 'checksum_mismatch'
  /** Written by another version of the store. */
  | 'schema_version_mismatch'
  /** Written for a runtime this one cannot run. */
  | 'runtime_incompatible'
  /** Stale or degraded, and the repair budget since the last generation is spent. */
  | 'repair_budget_exhausted'
  /** Stale or degraded, and the `repair` switch is off. */
  | 'repair_disabled'
  /** The `readArtifacts` switch is off, or the role is not in `readRoles`. */
  | 'artifact_read_disabled'
  /** The `generationOnly` switch is on. */
  | 'generation_only';

/**
 * What the loop should do for one method call:
 * - `run`: run `artifact.code` as it is, with no model call;
 * - `repair`: ask the model to fix `artifact.code` for `reason` (against the current
 *   contract), run it, and persist it with trigger `repair:<reason>` if it works;
 * - `generate`: ask the model to write the method from the contract, run it, and persist it
 *   with trigger `forge` (no previous generation) or `regenerate:<reason>`.
 */
export type Selection =
  | { readonly action: 'run'; readonly artifact: MethodArtifact }
  | { readonly action: 'repair'; readonly artifact: MethodArtifact; readonly reason: RepairReason }
  | { readonly action: 'generate'; readonly reason: GenerateReason };

/** What {@link decideSelection} weighs besides the loaded file. */
export interface SelectionContext {
  readonly contractFingerprint: string;
  readonly runtimeVersion: string;
  readonly policy: ToolStorePolicy;
  /** The `repair` switch. */
  readonly repair: boolean;
}

/**
 * The selection policy, pure: missing, unreadable or incompatible -> generate; healthy ->
 * run; stale, drifting or degraded -> repair while the budget lasts and repair is on, else
 * generate.
 */
export function decideSelection(load: ArtifactLoad, context: SelectionContext): Selection {
  switch (load.status) {
    case 'missing':
    case 'schema_version_mismatch':
      return { action: 'generate', reason: load.status };
    case 'quarantined':
      return { action: 'generate', reason: load.problem };
    case 'found':
      break;
  }
  const artifact = load.artifact;
  const health = assessHealth(artifact, context);
  switch (health.status) {
    case 'healthy':
      return { action: 'run', artifact };
    case 'runtime_incompatible':
      return { action: 'generate', reason: 'runtime_incompatible' };
    default:
      if (!context.repair) return { action: 'generate', reason: 'repair_disabled' };
      if (health.repairsLeft === 0)
        return { action: 'generate', reason: 'repair_budget_exhausted' };
      return { action: 'repair', artifact, reason: health.status };
  }
}
