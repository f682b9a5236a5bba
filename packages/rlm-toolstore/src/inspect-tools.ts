import { assessHealth, type HealthAssessment } from './assess-health.js';
import type { MethodArtifact } from './method-artifact.js';
import { latestTimestamp, type ToolRecord, toolLastActivity } from './registry.js';
import type { ToolStore } from './tool-store.js';

/** Days without activity after which a tool is a prune candidate, by default. */
export const defaultPruneAfterDays = 90;

/** One persisted method and its health. */
export interface MethodReport {
  readonly artifact: MethodArtifact;
  readonly health: HealthAssessment;
}

/** One tool as the maintenance commands see it. */
export interface ToolReport {
  readonly role: string;
  /** The registry entry; `undefined` for method files the registry does not list. */
  readonly tool: ToolRecord | undefined;
  /** Its persisted methods, by name. */
  readonly methods: readonly MethodReport[];
  /** Latest of use, restoration and creation (see `toolLastActivity`). */
  readonly lastActivityAt: string;
  /** Inactive for longer than `pruneAfterDays`: a prune candidate. */
  readonly unused: boolean;
}

/** Options of {@link inspectTools}. */
export interface InspectToolsOptions {
  /** Default: the current time. */
  readonly now?: Date;
  /** When set, methods written for an incompatible runtime show `runtime_incompatible`. */
  readonly runtimeVersion?: string;
  /** Default {@link defaultPruneAfterDays}. */
  readonly pruneAfterDays?: number;
}

/**
 * Every tool the store knows (registry entries and method files), sorted by role, each
 * method judged by `assessHealth` against the tool's registered contract. Unsound method
 * files are quarantined on the way.
 */
export async function inspectTools(
  store: ToolStore,
  options: InspectToolsOptions = {},
): Promise<ToolReport[]> {
  const now = (options.now ?? new Date()).getTime();
  const pruneAfterMs = (options.pruneAfterDays ?? defaultPruneAfterDays) * 86_400_000;
  const registry = await store.loadRegistry();
  const byRole = new Map<string, MethodArtifact[]>();
  for (const artifact of await store.listArtifacts()) {
    byRole.set(artifact.role, [...(byRole.get(artifact.role) ?? []), artifact]);
  }
  const roles = [...new Set([...Object.keys(registry.tools), ...byRole.keys()])].sort();
  return roles.map((role) => {
    const tool = registry.tools[role];
    const artifacts = byRole.get(role) ?? [];
    const methods = artifacts.map((artifact) => ({
      artifact,
      health: assessHealth(artifact, {
        contractFingerprint: tool?.contract_fingerprint,
        runtimeVersion: options.runtimeVersion,
        policy: store.policy,
      }),
    }));
    const lastActivityAt = tool
      ? toolLastActivity(tool)
      : latestTimestamp(artifacts.flatMap((a) => [a.created_at, a.last_used_at]))!;
    return {
      role,
      tool,
      methods,
      lastActivityAt,
      unused: now - Date.parse(lastActivityAt) > pruneAfterMs,
    };
  });
}
