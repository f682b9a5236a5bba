import { escapeControlCharacters, formatErrorLine } from '@rlm/core';
import type { HealthAssessment } from './assess-health.js';
import { ToolNotFoundError } from './errors/tool-not-found-error.js';
import { defaultPruneAfterDays, inspectTools, type ToolReport } from './inspect-tools.js';
import type { MethodArtifact } from './method-artifact.js';
import { parseToolsArguments, type ToolsCommand } from './parse-tools-arguments.js';
import { pruneTools } from './prune-tools.js';
import { ToolStore } from './tool-store.js';

/** Where `runToolsCommand` writes: `process.stdout` and `process.stderr` fit. */
export interface ToolsCommandOutput {
  write(text: string): unknown;
  /**
   * A terminal: model-made text (contracts, code, error lines) is written with its control
   * characters shown, not acted on. Pipes and `--json` get the exact bytes.
   */
  readonly isTTY?: boolean;
}

/** Options of {@link runToolsCommand}. */
export interface RunToolsCommandOptions {
  /** The store's directory. Default `defaultToolStoreRoot()`. */
  readonly root?: string;
  /** Results. */
  readonly stdout: ToolsCommandOutput;
  /** Errors, as one line starting with `rlm tools: `. */
  readonly stderr: ToolsCommandOutput;
  /** The clock, for ages and pruning. Default: the current time. */
  readonly now?: Date;
  /** The runtime's version: when given, `list` and `stale` flag incompatible methods. */
  readonly runtimeVersion?: string;
}

/** The text of `rlm tools --help`. */
export const toolsHelpText = `Usage: rlm tools <command> [options]

Persisted tools: contracts in registry.json, method code in tools/<role>/<method>.json.
The store is the project's .rlm/tools unless rlm --toolstore <dir|user> tools ... or
RLM_TOOLSTORE names another (user: the per-user store shared by every project).

Commands:
  list [--json]                       every tool and method with its status
  stale [--json] [--older-than <d>]   methods that will be repaired or regenerated, and
                                      tools inactive for more than <d> days (default ${defaultPruneAfterDays})
  prune [--dry-run] [--older-than <d>]
                                      archive tools inactive for more than <d> days
  restore <role> [archive-id]         bring an archived tool back (the latest archive by default)
  quarantine <role.method>            set a method's code aside; the next call regenerates it
  bless <role.method> [--reset-metrics]
                                      declare a method good: healthy, full repair budget,
                                      the tool's current contract; optionally zero its counts
  show <role[.method]> [--json]       a tool's record, or a method's record and code

Exit codes: 0 done, 1 failed (nothing found, conflict, locked), 2 bad arguments.
`;

/**
 * Runs `rlm tools <argv...>` against a store and resolves to the exit code: 0 done, 1 the
 * operation failed (no such tool, conflict, lock timeout), 2 bad arguments (nothing was
 * touched). Never rejects: every error is printed on `stderr` as one line starting with
 * `rlm tools: `. `argv` is what follows `tools` on the command line.
 */
export async function runToolsCommand(
  argv: readonly string[],
  options: RunToolsCommandOptions,
): Promise<number> {
  const parsed = parseToolsArguments(argv);
  if (!parsed.ok) {
    options.stderr.write(`rlm tools: ${parsed.message} (see rlm tools --help)\n`);
    return 2;
  }
  try {
    const store = new ToolStore({ root: options.root, now: options.now && (() => options.now!) });
    options.stdout.write(shownOn(options.stdout, await execute(parsed.command, store, options)));
    return 0;
  } catch (error) {
    options.stderr.write(shownOn(options.stderr, `rlm tools: ${formatErrorLine(error)}\n`));
    return 1;
  }
}

function shownOn(output: ToolsCommandOutput, text: string): string {
  return output.isTTY ? escapeControlCharacters(text) : text;
}

async function execute(
  command: ToolsCommand,
  store: ToolStore,
  options: RunToolsCommandOptions,
): Promise<string> {
  const inspect = { now: options.now, runtimeVersion: options.runtimeVersion };
  switch (command.name) {
    case 'help':
      return toolsHelpText;
    case 'list': {
      const reports = await inspectTools(store, inspect);
      if (command.json) return json(reports.map(reportJson));
      if (reports.length === 0) return `no tools in ${store.root}\n`;
      return table([
        ['TOOL', 'STATUS', 'GENERATION', 'CALLS', 'OK', 'LAST ACTIVE'],
        ...reports.flatMap(listRows),
      ]);
    }
    case 'stale': {
      const reports = await inspectTools(store, {
        ...inspect,
        pruneAfterDays: command.pruneAfterDays,
      });
      const rows = reports.flatMap((report) =>
        staleRows(report, store.policy.maxRepairsBeforeRegeneration),
      );
      if (command.json)
        return json(rows.map(([tool, status, detail]) => ({ tool, status, detail })));
      if (rows.length === 0) return 'nothing stale\n';
      return table([['TOOL', 'STATUS', 'DETAIL'], ...rows]);
    }
    case 'prune': {
      const days = command.pruneAfterDays ?? defaultPruneAfterDays;
      const result = await pruneTools(store, {
        ...inspect,
        pruneAfterDays: days,
        dryRun: command.dryRun,
      });
      if (result.candidates.length === 0) {
        return `nothing to prune: no tool inactive for more than ${days} days\n`;
      }
      if (command.dryRun) {
        return result.candidates
          .map(
            (report) =>
              `would archive ${report.role} (last active ${day(report.lastActivityAt)}, ${plural(report.methods.length, 'method')})\n`,
          )
          .join('');
      }
      return result.archived
        .map(
          (archive) =>
            `archived ${archive.role} -> ${archive.location} (restore: rlm tools restore ${archive.role} ${archive.id})\n`,
        )
        .join('');
    }
    case 'restore': {
      const archive = await store.restoreTool(command.role, command.archiveId);
      return `restored ${archive.role} from ${archive.location} (${plural(archive.methods.length, 'method')})\n`;
    }
    case 'quarantine': {
      const moved = await store.quarantineMethod(command.role, command.method);
      return `quarantined ${command.role}.${command.method} -> ${moved}; its next call regenerates it\n`;
    }
    case 'bless': {
      const artifact = await store.blessMethod(command.role, command.method, {
        resetMetrics: command.resetMetrics,
      });
      return `blessed ${command.role}.${command.method} (${artifact.generation_id})${command.resetMetrics ? ', metrics reset' : ''}\n`;
    }
    case 'show':
      return show(command, store, inspect);
  }
}

async function show(
  command: Extract<ToolsCommand, { name: 'show' }>,
  store: ToolStore,
  inspect: { now?: Date; runtimeVersion?: string },
): Promise<string> {
  const report = (await inspectTools(store, inspect)).find((entry) => entry.role === command.role);
  if (report === undefined) throw new ToolNotFoundError(`no tool ${command.role}`);
  if (command.method === undefined) {
    if (command.json) return json(reportJson(report));
    const tool = report.tool;
    const lines = [
      `tool ${report.role}`,
      ...(tool
        ? [
            `purpose    ${typeof tool.contract.purpose === 'string' ? tool.contract.purpose : '(none)'}`,
            `contract   ${tool.contract_fingerprint}`,
            `calls      ${describeCounts(tool, tool.usage_count)}`,
            `created    ${tool.created_at}`,
          ]
        : ['(method files only: not in the registry)']),
      `active     ${report.lastActivityAt}${report.unused ? ' (prune candidate)' : ''}`,
      `methods    ${report.methods.map((entry) => `${entry.artifact.method_name} (${entry.health.status})`).join(', ') || '(none)'}`,
    ];
    return `${lines.join('\n')}\n`;
  }
  const method = report.methods.find((entry) => entry.artifact.method_name === command.method);
  if (method === undefined) {
    throw new ToolNotFoundError(`no persisted method ${command.role}.${command.method}`);
  }
  if (command.json) return json({ ...method.artifact, status: method.health.status });
  return describeMethod(method.artifact, method.health);
}

function describeMethod(artifact: MethodArtifact, health: HealthAssessment): string {
  const current = artifact.history[0]!;
  const lines = [
    `${artifact.role}.${artifact.method_name}  ${artifact.generation_id} (${current.trigger}${current.parent_id ? `, parent ${current.parent_id}` : ''})`,
    `status           ${health.status}, ${plural(health.repairsLeft, 'repair')} left`,
    `model            ${artifact.model}`,
    `contract         ${artifact.contract_fingerprint}`,
    `prompt version   ${artifact.prompt_version}`,
    `runtime version  ${artifact.runtime_version}`,
    `calls            ${describeCounts(artifact, artifact.success_count + artifact.failure_count)}`,
    `failure rate     ${artifact.recent_failure_rate} (recent)`,
    `last failure     ${artifact.last_failure_class ? `${artifact.last_failure_class}: ${artifact.last_failure_reason} (${artifact.last_failure_at})` : '(none)'}`,
    `repairs          ${artifact.repair_count_since_regeneration} since the last generation`,
    `history          ${artifact.history.map((entry) => `${entry.id} ${entry.trigger} ${entry.created_at}`).join('; ')}`,
    `created          ${artifact.created_at}`,
    `last used        ${artifact.last_used_at ?? '(never)'}`,
    ...(artifact.blessed_at ? [`blessed          ${artifact.blessed_at}`] : []),
    `--- code (${artifact.code_checksum}) ---`,
    artifact.code,
  ];
  return `${lines.join('\n')}\n`;
}

function describeCounts(
  counts: {
    success_count: number;
    failure_count: number;
    intrinsic_failure_count: number;
    adaptive_failure_count: number;
    extrinsic_failure_count: number;
  },
  total: number,
): string {
  return `${total} (${counts.success_count} ok, ${counts.failure_count} failed: ${counts.intrinsic_failure_count} intrinsic, ${counts.adaptive_failure_count} adaptive, ${counts.extrinsic_failure_count} extrinsic)`;
}

function listRows(report: ToolReport): string[][] {
  const active = day(report.lastActivityAt) + (report.unused ? ' (unused)' : '');
  if (report.methods.length === 0) {
    return [[report.role, '(no methods)', '', String(report.tool?.usage_count ?? 0), '', active]];
  }
  return report.methods.map(({ artifact, health }) => {
    const judged =
      artifact.success_count + artifact.intrinsic_failure_count + artifact.adaptive_failure_count;
    return [
      `${artifact.role}.${artifact.method_name}`,
      health.status,
      artifact.generation_id,
      String(artifact.success_count + artifact.failure_count),
      judged === 0 ? '-' : `${Math.round((100 * artifact.success_count) / judged)}%`,
      active,
    ];
  });
}

function staleRows(report: ToolReport, repairBudget: number): string[][] {
  const rows = report.methods
    .filter(({ health }) => health.status !== 'healthy')
    .map(({ artifact, health }) => [
      `${artifact.role}.${artifact.method_name}`,
      health.status,
      staleDetail(artifact, health, repairBudget),
    ]);
  if (report.unused) {
    rows.push([
      report.role,
      'unused',
      `inactive since ${day(report.lastActivityAt)}: prune candidate`,
    ]);
  }
  return rows;
}

function staleDetail(artifact: MethodArtifact, health: HealthAssessment, budget: number): string {
  const cause =
    health.status === 'runtime_incompatible'
      ? `written for runtime ${artifact.runtime_version}`
      : health.status === 'stale_contract'
        ? `contract changed since ${artifact.generation_id}`
        : health.status === 'input_drift'
          ? `input format drift: ${artifact.last_failure_reason ?? 'adaptive failure'}`
          : `recent failure rate ${artifact.recent_failure_rate}`;
  const next =
    health.status === 'runtime_incompatible' || health.repairsLeft === 0
      ? 'regenerates on next call'
      : `repairs on next call (${budget - health.repairsLeft}/${budget} repairs used)`;
  return `${cause}; ${next}`;
}

function reportJson(report: ToolReport): unknown {
  return {
    role: report.role,
    tool: report.tool ?? null,
    last_activity_at: report.lastActivityAt,
    unused: report.unused,
    methods: report.methods.map(({ artifact, health }) => ({
      method: artifact.method_name,
      status: health.status,
      repairs_left: health.repairsLeft,
      generation_id: artifact.generation_id,
      success_count: artifact.success_count,
      failure_count: artifact.failure_count,
      last_used_at: artifact.last_used_at,
    })),
  };
}

function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, column) =>
    Math.max(...rows.map((row) => (row[column] ?? '').length)),
  );
  return rows
    .map(
      (row) =>
        `${row
          .map((cell, column) => cell.padEnd(widths[column]!))
          .join('  ')
          .trimEnd()}\n`,
    )
    .join('');
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

function day(timestamp: string): string {
  return timestamp.slice(0, 10);
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
