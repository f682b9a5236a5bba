import { isToolName } from './assert-tool-name.js';
import {
  arrayOf,
  type Check,
  firstProblem,
  isCount,
  isRecord,
  isString,
  isTimestamp,
  orNull,
} from './json-checks.js';
import { type OutcomeCounts, zeroOutcomeCounts } from './outcome-counts.js';
import { toolStoreSchemaVersion } from './schema-version.js';
import type { ToolContract } from './tool-contract.js';

/**
 * One tool in `registry.json`: its contract, its methods and its track record across runs
 * and processes. Timestamps are ISO 8601 strings in UTC.
 */
export interface ToolRecord extends OutcomeCounts {
  readonly role: string;
  /** The contract as last declared, stored verbatim so its fingerprint can be recomputed. */
  readonly contract: ToolContract;
  readonly contract_fingerprint: string;
  /** Names of the methods that have persisted code, sorted. */
  readonly methods: readonly string[];
  /** Calls of any method of the tool, whatever their outcome. */
  readonly usage_count: number;
  readonly created_at: string;
  readonly updated_at: string;
  readonly last_used_at: string | null;
  /** Set when the tool came back from the archive; pruning counts age from it. */
  readonly restored_at: string | null;
}

/** The content of `registry.json`: every tool by role. */
export interface Registry {
  readonly schema_version: number;
  readonly tools: Readonly<Record<string, ToolRecord>>;
}

/** A registry with no tools. */
export function emptyRegistry(): Registry {
  return { schema_version: toolStoreSchemaVersion, tools: {} };
}

/** A registry entry with no calls and no methods. */
export function newToolRecord(
  identity: {
    readonly role: string;
    readonly contract: ToolContract;
    readonly fingerprint: string;
  },
  now: string,
): ToolRecord {
  return {
    role: identity.role,
    contract: identity.contract,
    contract_fingerprint: identity.fingerprint,
    methods: [],
    usage_count: 0,
    ...zeroOutcomeCounts,
    created_at: now,
    updated_at: now,
    last_used_at: null,
    restored_at: null,
  };
}

/**
 * When the tool was last active: the latest of its last use, its restoration from the
 * archive and its creation. Ranking decays from it and pruning counts age from it.
 */
export function toolLastActivity(tool: ToolRecord): string {
  return latestTimestamp([tool.created_at, tool.last_used_at, tool.restored_at]) ?? tool.created_at;
}

/** The latest of some ISO timestamps, ignoring `null`; `undefined` when there are none. */
export function latestTimestamp(timestamps: readonly (string | null)[]): string | undefined {
  let latest: string | undefined;
  for (const timestamp of timestamps) {
    if (
      timestamp !== null &&
      (latest === undefined || Date.parse(timestamp) > Date.parse(latest))
    ) {
      latest = timestamp;
    }
  }
  return latest;
}

/** The text of `registry.json`: tools sorted by role, two-space indented, newline-terminated. */
export function serializeRegistry(registry: Registry): string {
  const tools = Object.fromEntries(
    Object.keys(registry.tools)
      .sort()
      .map((role) => [role, registry.tools[role]]),
  );
  return `${JSON.stringify({ schema_version: registry.schema_version, tools }, null, 2)}\n`;
}

const toolRecordChecks: Readonly<Record<keyof ToolRecord, Check>> = {
  role: isString,
  contract: isRecord,
  contract_fingerprint: isString,
  methods: arrayOf(isToolName),
  usage_count: isCount,
  success_count: isCount,
  failure_count: isCount,
  intrinsic_failure_count: isCount,
  adaptive_failure_count: isCount,
  extrinsic_failure_count: isCount,
  created_at: isTimestamp,
  updated_at: isTimestamp,
  last_used_at: orNull(isTimestamp),
  restored_at: orNull(isTimestamp),
};

/** The outcome of checking a parsed `registry.json`. */
export interface RegistryCheck {
  /** The sound part: every valid tool entry. */
  readonly registry: Registry;
  /** What was wrong, when anything was; the file should then be quarantined. */
  readonly problem: string | undefined;
}

/**
 * Checks a parsed `registry.json` and keeps what is sound: a wrong schema version or shape
 * keeps nothing, an invalid tool entry is dropped alone.
 */
export function checkRegistry(value: unknown): RegistryCheck {
  if (!isRecord(value)) return { registry: emptyRegistry(), problem: 'not a JSON object' };
  if (value.schema_version !== toolStoreSchemaVersion) {
    return {
      registry: emptyRegistry(),
      problem: `schema_version ${JSON.stringify(value.schema_version)} is not ${toolStoreSchemaVersion}`,
    };
  }
  if (!isRecord(value.tools))
    return { registry: emptyRegistry(), problem: 'tools is not an object' };
  const tools: Record<string, ToolRecord> = {};
  const problems: string[] = [];
  for (const [role, entry] of Object.entries(value.tools)) {
    const problem = findToolRecordProblem(entry, role);
    if (problem === undefined) tools[role] = entry as ToolRecord;
    else problems.push(`tool ${JSON.stringify(role)}: ${problem}`);
  }
  return {
    registry: { schema_version: toolStoreSchemaVersion, tools },
    problem: problems.length > 0 ? problems.join('; ') : undefined,
  };
}

/** What is wrong with a parsed registry entry that should describe `role`, if anything. */
export function findToolRecordProblem(value: unknown, role: string): string | undefined {
  if (!isRecord(value)) return 'not an object';
  const problem = firstProblem(value, toolRecordChecks);
  if (problem !== undefined) return problem;
  if (!isToolName(role) || value.role !== role) return 'role is invalid or does not match its key';
  return undefined;
}
