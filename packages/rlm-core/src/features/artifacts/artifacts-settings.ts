import type { ArtifactStore } from '../../artifact-store.js';
import { ConfigurationError } from '../../errors/configuration-error.js';
import { nonNegativeInteger, positiveInteger } from '../../settings-checks.js';
import { defaultQuotas, type QuotaSettings } from './artifact-quota.js';
import { defaultCheckpointMaxLagMs } from './checkpointer.js';
import { defaultCheckpointMaxVariableBytes } from './checkpoints.js';

/** How checkpoints are taken (`createRLM({ artifacts: { checkpoints } })`). */
export interface CheckpointSettings {
  /**
   * Most bytes one variable may take serialised in a checkpoint. A larger variable is named
   * but not saved (a `checkpoint-variable-skipped` warning says so), and is lost on resume.
   * Default 268,435,456 (256 MiB). The CLI flag is `--checkpoint-max-variable-bytes`.
   */
  readonly maxVariableBytes?: number;
  /**
   * How old, in milliseconds, the newest checkpoint may grow while executions preempt the
   * snapshots after them (a model that answers faster than a large snapshot is taken; see
   * `Sandbox.snapshotVariables`); past it, the next execution waits for the snapshot. `0`: every
   * execution waits for the snapshot of the step before it (a checkpoint after every step, at
   * the cost of that wait). Default 30,000. The CLI flag is `--checkpoint-max-lag-ms`.
   */
  readonly maxLagMs?: number;
}

/**
 * Durable storage (`createRLM({ artifacts: { store, ... } })`): enables
 * `store`/`load`/`list_artifacts` in model code, named tool outputs, an "Available artifacts"
 * catalog in the prompt, a checkpoint after every executed step, and
 * `query(..., { resume: true })`. Records live in one scope per run (query + context hash, within
 * `runNamespace`).
 */
export interface ArtifactsSettings {
  /** Where artifacts, named records and checkpoints live (e.g. `@rlm/artifacts`). */
  readonly store: ArtifactStore;
  /** How checkpoints are taken. */
  readonly checkpoints?: CheckpointSettings;
  /** Per-run limits on artifacts written by model code. See {@link QuotaSettings}. */
  readonly quotas?: QuotaSettings;
  /**
   * An answer longer than this (characters of text, or of its JSON) is also stored as a blob,
   * and the result carries its `artifact` ref. Default 65,536.
   */
  readonly largeAnswerChars?: number;
  /** Characters of the artifact catalog shown in the prompt. Default 4,000. */
  readonly catalogChars?: number;
  /**
   * Keeps this RLM's runs apart from runs of the same query over the same context made with
   * other namespaces: each namespace gives a run another key (`RLMResult.runKey`), so another
   * scope of artifacts and records and other checkpoints; `resume` finds only the checkpoints of
   * its own namespace. Use one per configuration whose runs must not mix, e.g. the variants of an
   * evaluation (`'eval:nightly:variant-a'`). Any text of 1 to 256 characters without control
   * characters or surrounding spaces; separators such as `:` or `/` are plain characters (the
   * namespace is hashed into the key, never used as a path). Default: none, the key earlier
   * versions derived, so existing stores and their checkpoints keep working.
   */
  readonly runNamespace?: string;
}

/** The artifacts group with every default applied. */
export interface ResolvedArtifactsSettings {
  /** `undefined`: no store, the artifacts feature is not installed. */
  readonly store: ArtifactStore | undefined;
  readonly largeAnswerChars: number;
  readonly catalogChars: number;
  /** `undefined`: run keys without a namespace. */
  readonly runNamespace: string | undefined;
  readonly checkpointMaxVariableBytes: number;
  readonly checkpointMaxLagMs: number;
  /** Shared with host tools, whose outputs count against them too. */
  readonly quotas: Required<QuotaSettings>;
}

/**
 * Applies the defaults of the artifacts group and checks each value.
 *
 * @throws {RangeError} for a value out of its range, naming its grouped path.
 * @throws {ConfigurationError} for a `runNamespace` that is not 1 to 256 characters of text, or
 * that is given without a store.
 */
export function resolveArtifactsSettings(
  settings: Partial<ArtifactsSettings> | undefined,
): ResolvedArtifactsSettings {
  const checkpoints = settings?.checkpoints ?? {};
  const quotas = settings?.quotas ?? {};
  return {
    store: settings?.store,
    largeAnswerChars: positiveInteger(
      settings?.largeAnswerChars ?? 65_536,
      'artifacts.largeAnswerChars',
    ),
    catalogChars: positiveInteger(settings?.catalogChars ?? 4_000, 'artifacts.catalogChars'),
    runNamespace: runNamespaceOf(settings),
    checkpointMaxVariableBytes: positiveInteger(
      checkpoints.maxVariableBytes ?? defaultCheckpointMaxVariableBytes,
      'artifacts.checkpoints.maxVariableBytes',
    ),
    checkpointMaxLagMs: nonNegativeInteger(
      checkpoints.maxLagMs ?? defaultCheckpointMaxLagMs,
      'artifacts.checkpoints.maxLagMs',
    ),
    quotas: {
      artifactBytes: positiveInteger(
        quotas.artifactBytes ?? defaultQuotas.artifactBytes,
        'artifacts.quotas.artifactBytes',
      ),
      artifactCount: positiveInteger(
        quotas.artifactCount ?? defaultQuotas.artifactCount,
        'artifacts.quotas.artifactCount',
      ),
    },
  };
}

/** Characters a run namespace may have at most. */
const maxRunNamespaceChars = 256;

function runNamespaceOf(settings: Partial<ArtifactsSettings> | undefined): string | undefined {
  const namespace: unknown = settings?.runNamespace;
  if (namespace === undefined) return undefined;
  const problem =
    typeof namespace !== 'string'
      ? `must be a string, got ${namespace === null ? 'null' : typeof namespace}`
      : namespace.length === 0 || namespace.length > maxRunNamespaceChars
        ? `must have 1 to ${maxRunNamespaceChars} characters, got ${namespace.length}`
        : /\p{Cc}/u.test(namespace)
          ? 'must not contain control characters (line breaks, tabs, NUL)'
          : namespace.trim() !== namespace
            ? 'must not start or end with spaces'
            : settings?.store === undefined
              ? 'keeps runs apart in a store, and no artifacts.store is given'
              : undefined;
  if (problem === undefined) return namespace as string;
  throw new ConfigurationError(
    `@rlm/core: artifacts.runNamespace ${problem}; give a short name such as 'eval:variant-a', or leave it out`,
    { setting: 'artifacts.runNamespace' },
  );
}
