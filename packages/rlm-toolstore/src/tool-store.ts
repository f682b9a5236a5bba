import { appendFile, mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { applyOutcome, applyToolOutcome, type ClassifiedOutcome } from './apply-outcome.js';
import { assertToolName, isToolName } from './assert-tool-name.js';
import { atomicWriteFile } from './atomic-write-file.js';
import type { DurableToolStore, DurableToolSummary } from '@rlm/core';
import { classifyFailure, type FailureClass, toFailureInfo } from './classify-failure.js';
import { codeChecksum } from './code-checksum.js';
import { contractFingerprint } from './contract-fingerprint.js';
import { decideSelection, type Selection } from './decide-selection.js';
import { defaultToolStoreRoot } from './default-tool-store-root.js';
import { errorCode } from './error-code.js';
import { ToolConflictError } from './errors/tool-conflict-error.js';
import { ToolNotFoundError } from './errors/tool-not-found-error.js';
import { isRecord } from './json-checks.js';
import { knownToolsOf } from './known-tools-of.js';
import { type ArtifactLoad, findArtifactProblem, type MethodArtifact } from './method-artifact.js';
import { type NewGeneration, nextGeneration } from './next-generation.js';
import { listDirectoryIfPresent, pathExists, readTextIfPresent } from './optional-files.js';
import { zeroOutcomeCounts } from './outcome-counts.js';
import {
  checkRegistry,
  emptyRegistry,
  findToolRecordProblem,
  newToolRecord,
  type Registry,
  serializeRegistry,
  type ToolRecord,
} from './registry.js';
import type { RankToolsOptions } from './rank-tools.js';
import { toolStoreSchemaVersion } from './schema-version.js';
import type { ToolCallOutcome } from './tool-call-outcome.js';
import type { ToolContract } from './tool-contract.js';
import { toolRecordFromArtifacts } from './tool-record-from-artifacts.js';
import type { ToolCallEvent, ToolStoreEvent } from './tool-store-event.js';
import { timeStamp, ToolStoreLayout } from './tool-store-layout.js';
import {
  defaultToolStorePolicy,
  type ToolRuntime,
  type ToolStorePolicy,
  type ToolStoreSettings,
  type ToolStoreSwitches,
} from './tool-store-settings.js';
import { type FileLockOptions, withFileLock } from './with-file-lock.js';

/** A pruned tool waiting in `archive/`. */
export interface ArchivedTool {
  readonly role: string;
  /** The archive's time stamp, e.g. `2026-05-01T10-00-00-000Z`; names it for `restoreTool`. */
  readonly id: string;
  /** The archive's directory, relative to the store root. */
  readonly location: string;
  /** The methods it holds. */
  readonly methods: readonly string[];
}

/** A method file as read, before anything is done about a bad one. */
type ArtifactRead =
  | Exclude<ArtifactLoad, { status: 'quarantined' }>
  | { status: 'unsound'; problem: 'corrupt' | 'checksum_mismatch'; detail: string };

/** `registry.json` as read, before anything is done about a bad one. */
type RegistryRead =
  | { status: 'missing' }
  | { status: 'found'; registry: Registry }
  | { status: 'unsound'; registry: Registry; problem: string };

/** What an archive's `tool.json` holds. */
interface ArchiveManifest {
  readonly archived_at: string;
  readonly tool: ToolRecord | null;
}

/** Creates a {@link ToolStore}. Nothing is read or written until the first call. */
export function createToolStore(settings: ToolStoreSettings = {}): ToolStore {
  return new ToolStore(settings);
}

/**
 * Durable tools in a directory: a registry of tool contracts and, per method, the code that
 * worked with its lineage and track record. Safe to share between processes: every
 * read-modify-write holds a file lock and every write is atomic. Unreadable files are moved
 * to `quarantine/` and never stop a call. The store never runs code; it stores it and
 * decides what the loop should do with it.
 *
 * All methods validate role and method names first and throw `InvalidToolNameError` for
 * anything but identifiers.
 */
export class ToolStore implements DurableToolStore {
  /** The store's directory. */
  readonly root: string;
  readonly policy: ToolStorePolicy;
  readonly switches: ToolStoreSwitches;
  readonly #layout: ToolStoreLayout;
  readonly #lockOptions: FileLockOptions | undefined;
  readonly #callLog: boolean;
  readonly #onEvent: ((event: ToolStoreEvent) => void) | undefined;
  readonly #now: () => Date;

  constructor(settings: ToolStoreSettings = {}) {
    this.root = path.resolve(settings.root ?? defaultToolStoreRoot());
    this.policy = { ...defaultToolStorePolicy, ...settings.policy };
    this.switches = {
      readArtifacts: true,
      repair: true,
      generationOnly: false,
      ...settings.switches,
    };
    this.#layout = new ToolStoreLayout(this.root);
    this.#lockOptions = settings.lock;
    this.#callLog = settings.callLog ?? true;
    this.#onEvent = settings.onEvent;
    this.#now = settings.now ?? (() => new Date());
  }

  /**
   * The registry's tools, best first (see `knownToolsOf`): data from which the loop writes the
   * prompt's `<known_tools>` block. `[]` when the registry has no tools.
   */
  async knownTools(options: RankToolsOptions = {}): Promise<DurableToolSummary[]> {
    return knownToolsOf(await this.loadRegistry(), { now: this.#now(), ...options });
  }

  /**
   * The registry. A missing file is an empty registry. A damaged one is moved to
   * `quarantine/` and replaced by its sound entries plus entries rebuilt from the method
   * files, which is written back.
   */
  async loadRegistry(): Promise<Registry> {
    const read = await this.#readRegistry();
    if (read.status === 'found') return read.registry;
    if (read.status === 'missing') return emptyRegistry();
    return this.#updateRegistry(() => undefined);
  }

  /** The registry entry of `role`, or `undefined`. */
  async findTool(role: string): Promise<ToolRecord | undefined> {
    assertToolName('role', role);
    return (await this.loadRegistry()).tools[role];
  }

  /**
   * Records a tool's contract, as `delegate(role, contract)` declares it. Idempotent: the
   * same contract again writes nothing. A changed contract replaces the old one, which makes
   * the tool's persisted methods stale. Throws `InvalidToolContractError` for a contract
   * that is not plain JSON.
   */
  async upsertTool(role: string, contract: ToolContract): Promise<ToolRecord> {
    assertToolName('role', role);
    const fingerprint = contractFingerprint(contract);
    const now = this.#timestamp();
    if (this.switches.generationOnly) return newToolRecord({ role, contract, fingerprint }, now);
    const registry = await this.#updateRegistry((current) => {
      const tool = current.tools[role];
      if (tool?.contract_fingerprint === fingerprint) return undefined;
      const updated = tool
        ? { ...tool, contract, contract_fingerprint: fingerprint, updated_at: now }
        : newToolRecord({ role, contract, fingerprint }, now);
      return withTool(current, updated);
    });
    return registry.tools[role]!;
  }

  /**
   * Reads the method file of `role.method`. A file that is not valid JSON, has the wrong
   * shape or identity, or whose code does not match its checksum is moved to `quarantine/`
   * (under the method's lock, after a second look) and reported as `quarantined`.
   */
  async loadArtifact(role: string, method: string): Promise<ArtifactLoad> {
    assertToolName('role', role);
    assertToolName('method', method);
    const file = this.#layout.methodFile(role, method);
    const read = await this.#readArtifact(file, role, method);
    if (read.status !== 'unsound') return read;
    return this.#withLock(file, async () => {
      const again = await this.#readArtifact(file, role, method);
      return again.status === 'unsound' ? this.#quarantineUnsound(file, again) : again;
    });
  }

  /** Every sound method file, sorted by role then method. Unsound ones are quarantined. */
  async listArtifacts(): Promise<MethodArtifact[]> {
    const artifacts: MethodArtifact[] = [];
    for (const role of await this.#storedRoles()) {
      for (const method of await this.#storedMethods(role)) {
        const load = await this.loadArtifact(role, method);
        if (load.status === 'found') artifacts.push(load.artifact);
      }
    }
    return artifacts;
  }

  /**
   * Decides what the loop should do for a call of `role.method` under `contract` (see
   * {@link Selection} and `decideSelection`): run the persisted code, repair it, or
   * generate new code. Honors the kill switches. May quarantine an unsound method file;
   * writes nothing else.
   */
  async select(
    role: string,
    method: string,
    contract: ToolContract,
    runtime: ToolRuntime,
  ): Promise<Selection> {
    assertToolName('role', role);
    assertToolName('method', method);
    const fingerprint = contractFingerprint(contract);
    if (this.switches.generationOnly) return { action: 'generate', reason: 'generation_only' };
    const readRoles = this.switches.readRoles;
    if (!this.switches.readArtifacts || (readRoles !== undefined && !readRoles.includes(role))) {
      return { action: 'generate', reason: 'artifact_read_disabled' };
    }
    const load = await this.loadArtifact(role, method);
    return decideSelection(load, {
      contractFingerprint: fingerprint,
      runtimeVersion: runtime.runtimeVersion,
      policy: this.policy,
      repair: this.switches.repair,
    });
  }

  /**
   * Classifies a failed call with `classifyFailure`: the one policy that counts the failure
   * (`recordOutcome`) and tells the loop whether a repair could help (not for `extrinsic`).
   */
  classifyFailure(error: { readonly name: string; readonly message: string }): FailureClass {
    return classifyFailure(error);
  }

  /**
   * Counts one call of `role.method` and logs it. The method file changes only when the
   * outcome concerns it (see `applyOutcome`): its current generation ran, or a repair failed
   * without being persisted (which spends one repair of the budget). The tool's registry
   * entry counts every call. Failures are classified by `classifyFailure` unless the outcome
   * says otherwise. Each file is updated under its own lock, so concurrent processes never
   * lose a count. Resolves to the method file after the update, or `undefined` if there is
   * none.
   */
  async recordOutcome(
    role: string,
    method: string,
    outcome: ToolCallOutcome,
  ): Promise<MethodArtifact | undefined> {
    assertToolName('role', role);
    assertToolName('method', method);
    const now = this.#timestamp();
    const classified: ClassifiedOutcome = {
      ok: outcome.ok,
      failureClass: outcome.ok ? null : (outcome.failureClass ?? classifyFailure(outcome.error)),
      failureReason: outcome.ok ? null : firstLine(toFailureInfo(outcome.error).message),
      programSource: outcome.programSource,
      generationId: outcome.generationId,
    };
    let artifact: MethodArtifact | undefined;
    if (!this.switches.generationOnly) {
      const file = this.#layout.methodFile(role, method);
      if (await pathExists(file)) {
        artifact = await this.#updateArtifact(role, method, (current) =>
          current ? applyOutcome(current, classified, now, this.policy) : undefined,
        );
      }
      await this.#updateRegistry((registry) => {
        const tool = registry.tools[role];
        const contract = tool?.contract ?? artifact?.contract ?? {};
        const fingerprint = tool?.contract_fingerprint ?? contractFingerprint(contract);
        return withTool(
          registry,
          applyToolOutcome(tool, { role, contract, fingerprint }, classified, now),
        );
      });
    }
    await this.#emit(callEvent(role, method, outcome, classified, artifact, now));
    return artifact;
  }

  /**
   * Persists code that has just worked as the new current generation of `role.method`
   * (see `nextGeneration`: `gen-<n+1>`, last three generations kept, health started over,
   * the repair budget spent by a `repair` and reset by anything else), and records the
   * contract and the method in the registry. Resolves to the method file as written. With
   * `generationOnly` on, resolves to it without writing anything.
   */
  async persistGeneration(
    role: string,
    method: string,
    generation: NewGeneration,
  ): Promise<MethodArtifact> {
    assertToolName('role', role);
    assertToolName('method', method);
    const fingerprint = contractFingerprint(generation.contract);
    const now = this.#timestamp();
    if (this.switches.generationOnly) {
      return nextGeneration(undefined, { role, method }, generation, now);
    }
    const artifact = (await this.#updateArtifact(role, method, (current) =>
      nextGeneration(current, { role, method }, generation, now),
    ))!;
    await this.#updateRegistry((registry) => {
      const tool =
        registry.tools[role] ??
        newToolRecord({ role, contract: generation.contract, fingerprint }, now);
      return withTool(registry, {
        ...tool,
        contract: generation.contract,
        contract_fingerprint: fingerprint,
        methods: [...new Set([...tool.methods, method])].sort(),
        updated_at: now,
      });
    });
    return artifact;
  }

  /**
   * Sets a method aside: its file moves to `quarantine/`, so the next call generates it
   * afresh. Resolves to where the file went, relative to the root. Throws
   * `ToolNotFoundError` when there is no such method file.
   */
  async quarantineMethod(role: string, method: string): Promise<string> {
    assertToolName('role', role);
    assertToolName('method', method);
    const file = this.#layout.methodFile(role, method);
    if (!(await pathExists(file))) throw notFound(role, method);
    const moved = await this.#withLock(file, () => this.#quarantine(file, 'set aside by operator'));
    if (moved === undefined) throw notFound(role, method);
    return this.#layout.relative(moved);
  }

  /**
   * Declares a method good: health starts over (`recent_failure_rate` 0, no input drift, a
   * full repair budget), `blessed_at` is set, and the method adopts the tool's current
   * contract from the registry, so it is no longer stale. With `resetMetrics` the counts and
   * last failure are cleared too. Throws `ToolNotFoundError` when there is no such method.
   */
  async blessMethod(
    role: string,
    method: string,
    options: { readonly resetMetrics?: boolean } = {},
  ): Promise<MethodArtifact> {
    assertToolName('role', role);
    assertToolName('method', method);
    if (!(await pathExists(this.#layout.methodFile(role, method)))) throw notFound(role, method);
    const tool = await this.findTool(role);
    const now = this.#timestamp();
    const blessed = await this.#updateArtifact(role, method, (current) => {
      if (current === undefined) return undefined;
      const metrics = options.resetMetrics
        ? {
            ...zeroOutcomeCounts,
            last_failure_reason: null,
            last_failure_class: null,
            last_failure_at: null,
          }
        : {};
      return {
        ...current,
        ...metrics,
        contract: tool?.contract ?? current.contract,
        contract_fingerprint: tool?.contract_fingerprint ?? current.contract_fingerprint,
        recent_failure_rate: 0,
        input_drift_at: null,
        repair_count_since_regeneration: 0,
        blessed_at: now,
        updated_at: now,
      };
    });
    if (blessed === undefined) throw notFound(role, method);
    await this.#emitMaintenance('bless', role, method, options.resetMetrics ? 'metrics reset' : '');
    return blessed;
  }

  /**
   * Prunes a tool, reversibly: its registry entry goes to `archive/<role>/<id>/tool.json`
   * and its method files to `archive/<role>/<id>/methods/`. Runs under the registry lock.
   * A process writing one of the tool's methods at that very moment may lose that write;
   * prune tools that are not in use. Throws `ToolNotFoundError` when the store knows
   * nothing of `role`.
   */
  async archiveTool(role: string): Promise<ArchivedTool> {
    assertToolName('role', role);
    let archived: ArchivedTool | undefined;
    await this.#updateRegistry(async (registry) => {
      const tool = registry.tools[role];
      const methodsDirectory = this.#layout.roleDirectory(role);
      const methods = await this.#storedMethods(role);
      if (tool === undefined && methods.length === 0) {
        throw new ToolNotFoundError(`no tool ${role} to archive`);
      }
      const { id, directory } = await this.#createArchiveDirectory(role);
      try {
        const manifest: ArchiveManifest = { archived_at: this.#timestamp(), tool: tool ?? null };
        await atomicWriteFile(
          path.join(directory, 'tool.json'),
          `${JSON.stringify(manifest, null, 2)}\n`,
        );
        if (await pathExists(methodsDirectory)) {
          await rename(methodsDirectory, path.join(directory, 'methods'));
        }
      } catch (error) {
        await rm(directory, { recursive: true, force: true });
        throw error;
      }
      archived = { role, id, location: this.#layout.relative(directory), methods };
      const tools = Object.fromEntries(
        Object.entries(registry.tools).filter(([name]) => name !== role),
      );
      return { ...registry, tools };
    });
    await this.#emitMaintenance('archive', role, null, archived!.location);
    return archived!;
  }

  /** The archives of `role` (or of every role), oldest first. */
  async listArchives(role?: string): Promise<ArchivedTool[]> {
    if (role !== undefined) assertToolName('role', role);
    const roles =
      role !== undefined
        ? [role]
        : (await listDirectoryIfPresent(path.join(this.root, 'archive'))).filter(isToolName);
    const archives: ArchivedTool[] = [];
    for (const name of roles) {
      const roleDirectory = this.#layout.roleArchiveDirectory(name);
      for (const id of await listDirectoryIfPresent(roleDirectory)) {
        const directory = path.join(roleDirectory, id);
        const methods = (await listDirectoryIfPresent(path.join(directory, 'methods')))
          .filter((file) => file.endsWith('.json'))
          .map((file) => file.slice(0, -'.json'.length))
          .filter(isToolName);
        archives.push({ role: name, id, location: this.#layout.relative(directory), methods });
      }
    }
    return archives;
  }

  /**
   * Brings an archived tool back: its method files and registry entry (with `restored_at`
   * set, so pruning counts its age from now), and deletes the archive. Restores the archive
   * `id`, or the latest. Resolves to the archive restored. Throws `ToolNotFoundError` when
   * there is no such archive and `ToolConflictError` when the role is in use again.
   */
  async restoreTool(role: string, id?: string): Promise<ArchivedTool> {
    assertToolName('role', role);
    const archives = await this.listArchives(role);
    const archive = id === undefined ? archives.at(-1) : archives.find((entry) => entry.id === id);
    if (archive === undefined) {
      throw new ToolNotFoundError(
        id === undefined ? `no archive of ${role}` : `no archive ${id} of ${role}`,
      );
    }
    const directory = path.join(this.root, archive.location);
    const now = this.#timestamp();
    await this.#updateRegistry(async (current) => {
      if (current.tools[role] !== undefined || (await this.#storedMethods(role)).length > 0) {
        throw new ToolConflictError(`tool ${role} exists again; archive it before restoring`);
      }
      const methodsDirectory = this.#layout.roleDirectory(role);
      await rm(methodsDirectory, { recursive: true, force: true });
      if (await pathExists(path.join(directory, 'methods'))) {
        await mkdir(this.#layout.toolsDirectory, { recursive: true });
        await rename(path.join(directory, 'methods'), methodsDirectory);
      }
      const archived = await readArchivedTool(path.join(directory, 'tool.json'), role);
      const artifacts = await this.#soundArtifacts(role);
      const tool =
        archived ??
        (artifacts.length > 0 ? toolRecordFromArtifacts(role, artifacts, now) : undefined);
      await rm(directory, { recursive: true, force: true });
      if (tool === undefined) return undefined;
      const methods = [...new Set([...tool.methods, ...artifacts.map((a) => a.method_name)])];
      return withTool(current, { ...tool, methods: methods.sort(), restored_at: now });
    });
    await this.#emitMaintenance('restore', role, null, archive.location);
    return archive;
  }

  // ---- files ---------------------------------------------------------------------------

  #timestamp(): string {
    return this.#now().toISOString();
  }

  #withLock<T>(file: string, critical: () => Promise<T>): Promise<T> {
    return withFileLock(`${file}.lock`, critical, this.#lockOptions);
  }

  async #readArtifact(file: string, role: string, method: string): Promise<ArtifactRead> {
    const text = await readTextIfPresent(file);
    if (text === undefined) return { status: 'missing' };
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      return { status: 'unsound', problem: 'corrupt', detail: `not JSON: ${describe(error)}` };
    }
    if (!isRecord(value)) return { status: 'unsound', problem: 'corrupt', detail: 'not an object' };
    if (
      typeof value.schema_version === 'number' &&
      value.schema_version !== toolStoreSchemaVersion
    ) {
      return { status: 'schema_version_mismatch', schemaVersion: value.schema_version };
    }
    const problem = findArtifactProblem(value, role, method);
    if (problem !== undefined) return { status: 'unsound', problem: 'corrupt', detail: problem };
    const artifact = value as unknown as MethodArtifact;
    if (codeChecksum(artifact.code) !== artifact.code_checksum) {
      return {
        status: 'unsound',
        problem: 'checksum_mismatch',
        detail: 'code does not match code_checksum',
      };
    }
    return { status: 'found', artifact };
  }

  async #quarantineUnsound(
    file: string,
    read: Extract<ArtifactRead, { status: 'unsound' }>,
  ): Promise<ArtifactLoad> {
    const moved = await this.#quarantine(file, `${read.problem}: ${read.detail}`);
    if (moved === undefined) return { status: 'missing' };
    return {
      status: 'quarantined',
      problem: read.problem,
      detail: read.detail,
      quarantinedTo: this.#layout.relative(moved),
    };
  }

  /** Read-modify-write of a method file under its lock; `change` returns undefined to keep it. */
  async #updateArtifact(
    role: string,
    method: string,
    change: (current: MethodArtifact | undefined) => MethodArtifact | undefined,
  ): Promise<MethodArtifact | undefined> {
    const file = this.#layout.methodFile(role, method);
    await mkdir(path.dirname(file), { recursive: true });
    return this.#withLock(file, async () => {
      const read = await this.#readArtifact(file, role, method);
      if (read.status === 'unsound') await this.#quarantineUnsound(file, read);
      const current = read.status === 'found' ? read.artifact : undefined;
      const next = change(current);
      if (next === undefined) return current;
      await atomicWriteFile(file, `${JSON.stringify(next, null, 2)}\n`);
      return next;
    });
  }

  async #readRegistry(): Promise<RegistryRead> {
    const text = await readTextIfPresent(this.#layout.registryFile);
    if (text === undefined) return { status: 'missing' };
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      return {
        status: 'unsound',
        registry: emptyRegistry(),
        problem: `not JSON: ${describe(error)}`,
      };
    }
    const { registry, problem } = checkRegistry(value);
    return problem === undefined
      ? { status: 'found', registry }
      : { status: 'unsound', registry, problem };
  }

  /**
   * Read-modify-write of the registry under its lock; `change` returns undefined to keep it.
   * A damaged registry is quarantined and rebuilt first, and the result always written.
   */
  async #updateRegistry(
    change: (current: Registry) => Registry | undefined | Promise<Registry | undefined>,
  ): Promise<Registry> {
    const file = this.#layout.registryFile;
    await mkdir(this.root, { recursive: true });
    return this.#withLock(file, async () => {
      const read = await this.#readRegistry();
      let registry = read.status === 'missing' ? emptyRegistry() : read.registry;
      let dirty = false;
      if (read.status === 'unsound') {
        await this.#quarantine(file, read.problem);
        registry = await this.#withRebuiltTools(registry);
        dirty = true;
      }
      const next = await change(registry);
      if (next !== undefined) {
        registry = next;
        dirty = true;
      }
      if (dirty) await atomicWriteFile(file, serializeRegistry(registry));
      return registry;
    });
  }

  /** `registry` plus entries rebuilt from method files for roles it lacks or lists partly. */
  async #withRebuiltTools(registry: Registry): Promise<Registry> {
    let rebuilt = registry;
    const now = this.#timestamp();
    for (const role of await this.#storedRoles()) {
      const artifacts = await this.#soundArtifacts(role);
      if (artifacts.length === 0) continue;
      const known = rebuilt.tools[role];
      const tool = known ?? toolRecordFromArtifacts(role, artifacts, now);
      const methods = [...new Set([...tool.methods, ...artifacts.map((a) => a.method_name)])];
      rebuilt = withTool(rebuilt, { ...tool, methods: methods.sort() });
    }
    return rebuilt;
  }

  /** Sound method files of `role`, read without locks or quarantine. */
  async #soundArtifacts(role: string): Promise<MethodArtifact[]> {
    const artifacts: MethodArtifact[] = [];
    for (const method of await this.#storedMethods(role)) {
      const read = await this.#readArtifact(this.#layout.methodFile(role, method), role, method);
      if (read.status === 'found') artifacts.push(read.artifact);
    }
    return artifacts;
  }

  async #storedRoles(): Promise<string[]> {
    return (await listDirectoryIfPresent(this.#layout.toolsDirectory)).filter(isToolName);
  }

  async #storedMethods(role: string): Promise<string[]> {
    return (await listDirectoryIfPresent(this.#layout.roleDirectory(role)))
      .filter((file) => file.endsWith('.json'))
      .map((file) => file.slice(0, -'.json'.length))
      .filter(isToolName);
  }

  /** Moves `file` under `quarantine/` and logs it; `undefined` if it was already gone. */
  async #quarantine(file: string, reason: string): Promise<string | undefined> {
    const at = this.#now();
    const target = this.#layout.quarantineFileFor(file, at);
    await mkdir(path.dirname(target), { recursive: true });
    try {
      await rename(file, target);
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return undefined;
      throw error;
    }
    await this.#emit({
      type: 'tool_quarantine',
      at: at.toISOString(),
      file: this.#layout.relative(file),
      quarantined_to: this.#layout.relative(target),
      reason,
    });
    return target;
  }

  async #createArchiveDirectory(role: string): Promise<{ id: string; directory: string }> {
    const base = timeStamp(this.#now());
    await mkdir(this.#layout.roleArchiveDirectory(role), { recursive: true });
    for (let attempt = 0; ; attempt++) {
      const id = attempt === 0 ? base : `${base}-${attempt}`;
      const directory = path.join(this.#layout.roleArchiveDirectory(role), id);
      try {
        await mkdir(directory);
        return { id, directory };
      } catch (error) {
        if (errorCode(error) !== 'EEXIST') throw error;
      }
    }
  }

  async #emitMaintenance(
    action: 'archive' | 'restore' | 'bless',
    role: string,
    method: string | null,
    detail: string,
  ): Promise<void> {
    await this.#emit({
      type: 'tool_maintenance',
      at: this.#timestamp(),
      action,
      role,
      method,
      detail,
    });
  }

  /** Appends the event to the call log and hands it to `onEvent`; never throws. */
  async #emit(event: ToolStoreEvent): Promise<void> {
    if (this.#callLog) {
      try {
        await mkdir(this.root, { recursive: true });
        await appendFile(this.#layout.callLogFile, `${JSON.stringify(event)}\n`, 'utf8');
      } catch {
        // Best effort: a full disk or a read-only root must not fail the call being logged.
      }
    }
    try {
      this.#onEvent?.(event);
    } catch {
      // Same: a failing observer never breaks a call.
    }
  }
}

function withTool(registry: Registry, tool: ToolRecord): Registry {
  return { ...registry, tools: { ...registry.tools, [tool.role]: tool } };
}

function notFound(role: string, method: string): ToolNotFoundError {
  return new ToolNotFoundError(`no persisted method ${role}.${method}`);
}

function firstLine(message: string): string {
  const line = message.split('\n', 1)[0] ?? '';
  return line.length > 500 ? `${line.slice(0, 499)}…` : line;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The registry entry saved in an archive's `tool.json`, if it is there and sound. */
async function readArchivedTool(file: string, role: string): Promise<ToolRecord | undefined> {
  const text = await readTextIfPresent(file);
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as unknown;
    if (!isRecord(value) || findToolRecordProblem(value.tool, role) !== undefined) return undefined;
    return value.tool as ToolRecord;
  } catch {
    return undefined;
  }
}

function callEvent(
  role: string,
  method: string,
  outcome: ToolCallOutcome,
  classified: ClassifiedOutcome,
  artifact: MethodArtifact | undefined,
  now: string,
): ToolCallEvent {
  const repairAttempted = outcome.programSource === 'repaired';
  return {
    type: 'tool_call',
    at: now,
    role,
    method,
    ok: outcome.ok,
    program_source: outcome.programSource,
    artifact_hit: outcome.programSource === 'persisted',
    generation_id: outcome.generationId ?? null,
    artifact_prompt_version: artifact?.prompt_version ?? null,
    artifact_contract_fingerprint: artifact?.contract_fingerprint ?? null,
    artifact_success_count: artifact?.success_count ?? null,
    artifact_failure_count: artifact?.failure_count ?? null,
    artifact_intrinsic_failure_count: artifact?.intrinsic_failure_count ?? null,
    artifact_adaptive_failure_count: artifact?.adaptive_failure_count ?? null,
    artifact_extrinsic_failure_count: artifact?.extrinsic_failure_count ?? null,
    artifact_generation_trigger: artifact?.history[0]?.trigger ?? null,
    repair_attempted: repairAttempted,
    repair_succeeded: repairAttempted ? outcome.ok : null,
    failure_class: classified.failureClass,
    failure_reason: classified.failureReason,
    duration_ms: outcome.durationMs ?? null,
  };
}
