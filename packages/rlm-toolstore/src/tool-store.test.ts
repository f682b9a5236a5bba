import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { contractFingerprint } from './contract-fingerprint.js';
import { InvalidToolContractError } from './errors/invalid-tool-contract-error.js';
import { InvalidToolNameError } from './errors/invalid-tool-name-error.js';
import { ToolConflictError } from './errors/tool-conflict-error.js';
import { ToolNotFoundError } from './errors/tool-not-found-error.js';
import type { MethodArtifact } from './method-artifact.js';
import type { NewGeneration } from './next-generation.js';
import { pathExists } from './optional-files.js';
import type { Registry } from './registry.js';
import { createToolStore, type ToolStore } from './tool-store.js';
import type { ToolCallEvent, ToolStoreEvent } from './tool-store-event.js';
import type { ToolStoreSettings } from './tool-store-settings.js';

const runtime = { runtimeVersion: '0.1.0', promptVersion: 'prompt-1' };
const contract = { purpose: 'parse CSV text into rows', deliverable: { type: 'array' } };
const parseCode = 'return text.split("\\n").map((line) => line.split(","));';

let root: string;
let clock: Date;
let events: ToolStoreEvent[];

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'rlm-toolstore-'));
  clock = new Date('2026-05-01T10:00:00.000Z');
  events = [];
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

function open(settings: ToolStoreSettings = {}): ToolStore {
  return createToolStore({
    root,
    now: () => clock,
    onEvent: (event) => events.push(event),
    ...settings,
  });
}

function generation(overrides: Partial<NewGeneration> = {}): NewGeneration {
  return { code: parseCode, contract, model: 'model-a', trigger: 'forge', runtime, ...overrides };
}

async function readJson<T>(relative: string): Promise<T> {
  return JSON.parse(await readFile(path.join(root, relative), 'utf8')) as T;
}

async function quarantined(): Promise<string[]> {
  const directory = path.join(root, 'quarantine');
  if (!(await pathExists(directory))) return [];
  return (await readdir(directory, { recursive: true })).map(String).sort();
}

async function fail(
  store: ToolStore,
  artifact: MethodArtifact | undefined,
  error: string,
  times = 1,
): Promise<MethodArtifact | undefined> {
  let latest = artifact;
  for (let index = 0; index < times; index++) {
    latest = await store.recordOutcome('csv_parser', 'parse', {
      ok: false,
      programSource: 'persisted',
      generationId: artifact?.generation_id,
      error,
    });
  }
  return latest;
}

describe('persistence across sessions', () => {
  test('a tool forged in one session runs in the next with no model call', async () => {
    const first = open();
    await first.upsertTool('csv_parser', contract);
    expect(await first.select('csv_parser', 'parse', contract, runtime)).toEqual({
      action: 'generate',
      reason: 'missing',
    });
    const persisted = await first.persistGeneration('csv_parser', 'parse', generation());
    await first.recordOutcome('csv_parser', 'parse', {
      ok: true,
      programSource: 'generated',
      generationId: persisted.generation_id,
    });

    const second = open();
    expect(await second.findTool('csv_parser')).toMatchObject({
      role: 'csv_parser',
      contract,
      contract_fingerprint: contractFingerprint(contract),
      methods: ['parse'],
      usage_count: 1,
      success_count: 1,
    });
    const selection = await second.select('csv_parser', 'parse', contract, runtime);
    expect(selection.action).toBe('run');
    expect(selection.action === 'run' && selection.artifact.code).toBe(parseCode);
  });

  test('writes the data model of seed 004', async () => {
    const store = open();
    await store.persistGeneration('csv_parser', 'parse', generation());
    const registry = await readJson<Registry>('registry.json');
    expect(registry.schema_version).toBe(1);
    expect(Object.keys(registry.tools)).toEqual(['csv_parser']);
    const artifact = await readJson<MethodArtifact>('tools/csv_parser/parse.json');
    expect(Object.keys(artifact).sort()).toEqual(
      [
        'schema_version',
        'role',
        'method_name',
        'contract',
        'contract_fingerprint',
        'prompt_version',
        'runtime_version',
        'model',
        'generation_id',
        'code_checksum',
        'code',
        'success_count',
        'failure_count',
        'intrinsic_failure_count',
        'adaptive_failure_count',
        'extrinsic_failure_count',
        'recent_failure_rate',
        'last_failure_reason',
        'last_failure_class',
        'last_failure_at',
        'input_drift_at',
        'repair_count_since_regeneration',
        'created_at',
        'updated_at',
        'last_used_at',
        'last_repaired_at',
        'blessed_at',
        'history',
      ].sort(),
    );
    expect(artifact).toMatchObject({
      prompt_version: 'prompt-1',
      runtime_version: '0.1.0',
      model: 'model-a',
      created_at: '2026-05-01T10:00:00.000Z',
    });
    expect(await readdir(path.join(root, 'tools', 'csv_parser'))).toEqual(['parse.json']);
  });

  test('upsertTool is idempotent and a changed contract makes methods stale', async () => {
    const store = open();
    const created = await store.upsertTool('csv_parser', contract);
    clock = new Date('2026-05-02T10:00:00.000Z');
    expect(await store.upsertTool('csv_parser', { ...contract })).toEqual(created);
    await store.persistGeneration('csv_parser', 'parse', generation());
    const changed = { ...contract, purpose: 'parse CSV or TSV' };
    const updated = await store.upsertTool('csv_parser', changed);
    expect(updated.contract_fingerprint).toBe(contractFingerprint(changed));
    expect(updated.created_at).toBe(created.created_at);
    expect(await store.select('csv_parser', 'parse', changed, runtime)).toMatchObject({
      action: 'repair',
      reason: 'stale_contract',
    });
  });

  test('refuses bad names and contracts before touching any file', async () => {
    const store = open();
    await expect(store.select('../etc', 'parse', contract, runtime)).rejects.toThrow(
      InvalidToolNameError,
    );
    await expect(
      store.persistGeneration('csv_parser', 'parse/../../x', generation()),
    ).rejects.toThrow(InvalidToolNameError);
    await expect(
      store.upsertTool('csv_parser', { deliverable: { when: new Date() } as never }),
    ).rejects.toThrow(InvalidToolContractError);
    expect(await readdir(root)).toEqual([]);
  });
});

describe('selection matrix', () => {
  test('healthy -> run, and a prompt change alone does not invalidate it', async () => {
    const store = open();
    await store.persistGeneration('csv_parser', 'parse', generation());
    const selection = await store.select('csv_parser', 'parse', contract, {
      ...runtime,
      promptVersion: 'prompt-2',
    });
    expect(selection.action).toBe('run');
  });

  test('fingerprint mismatch -> stale -> repair, then the repaired code runs', async () => {
    const store = open();
    await store.persistGeneration('csv_parser', 'parse', generation());
    const changed = { ...contract, acceptance: ['quoted fields keep their commas'] };
    const selection = await store.select('csv_parser', 'parse', changed, runtime);
    expect(selection).toMatchObject({ action: 'repair', reason: 'stale_contract' });
    const repaired = await store.persistGeneration(
      'csv_parser',
      'parse',
      generation({
        code: `${parseCode} // quotes`,
        contract: changed,
        trigger: 'repair:stale_contract',
      }),
    );
    expect(repaired).toMatchObject({
      generation_id: 'gen-2',
      repair_count_since_regeneration: 1,
      history: [
        { id: 'gen-2', parent_id: 'gen-1', trigger: 'repair:stale_contract' },
        { id: 'gen-1' },
      ],
    });
    expect(await store.select('csv_parser', 'parse', changed, runtime)).toMatchObject({
      action: 'run',
    });
  });

  test('repeated intrinsic failures degrade, failed repairs exhaust the budget -> generate', async () => {
    const store = open();
    const forged = await store.persistGeneration('csv_parser', 'parse', generation());
    await fail(store, forged, 'TypeError: line.split is not a function', 2);
    expect((await store.select('csv_parser', 'parse', contract, runtime)).action).toBe('run');
    await fail(store, forged, 'TypeError: line.split is not a function');
    expect(await store.select('csv_parser', 'parse', contract, runtime)).toMatchObject({
      action: 'repair',
      reason: 'degraded',
    });
    for (let attempt = 1; attempt <= 3; attempt++) {
      const after = await store.recordOutcome('csv_parser', 'parse', {
        ok: false,
        programSource: 'repaired',
        error: 'SyntaxError: Unexpected token )',
      });
      expect(after?.repair_count_since_regeneration).toBe(attempt);
    }
    expect(await store.select('csv_parser', 'parse', contract, runtime)).toEqual({
      action: 'generate',
      reason: 'repair_budget_exhausted',
    });
    const regenerated = await store.persistGeneration(
      'csv_parser',
      'parse',
      generation({ code: 'return [];', trigger: 'regenerate:repair_budget_exhausted' }),
    );
    expect(regenerated).toMatchObject({
      generation_id: 'gen-2',
      repair_count_since_regeneration: 0,
      recent_failure_rate: 0,
      intrinsic_failure_count: 3,
    });
    expect((await store.select('csv_parser', 'parse', contract, runtime)).action).toBe('run');
  });

  test('successful repairs also count against the budget', async () => {
    const store = open({ policy: { maxRepairsBeforeRegeneration: 2 } });
    let artifact = await store.persistGeneration('csv_parser', 'parse', generation());
    for (const expected of ['repair', 'repair', 'generate']) {
      await fail(store, artifact, 'ReferenceError: row is not defined', 3);
      const selection = await store.select('csv_parser', 'parse', contract, runtime);
      expect(selection.action).toBe(expected);
      if (selection.action === 'repair') {
        artifact = await store.persistGeneration(
          'csv_parser',
          'parse',
          generation({ trigger: `repair:${selection.reason}` }),
        );
      }
    }
  });

  test('an extrinsic outage never demotes a healthy tool', async () => {
    const store = open();
    const artifact = await store.persistGeneration('csv_parser', 'parse', generation());
    const after = await fail(store, artifact, 'Error: HTTP 503 upstream', 25);
    expect(after).toMatchObject({
      extrinsic_failure_count: 25,
      recent_failure_rate: 0,
      last_failure_class: 'extrinsic',
      last_failure_reason: 'Error: HTTP 503 upstream',
    });
    expect((await store.select('csv_parser', 'parse', contract, runtime)).action).toBe('run');
  });

  test('an adaptive failure (input format drift) -> repair at once', async () => {
    const store = open();
    const artifact = await store.persistGeneration('csv_parser', 'parse', generation());
    await fail(store, artifact, 'Error: unexpected format: expected 4 columns, got 5');
    expect(await store.select('csv_parser', 'parse', contract, runtime)).toMatchObject({
      action: 'repair',
      reason: 'input_drift',
    });
  });

  test('checksum mismatch -> quarantine -> generate', async () => {
    const store = open();
    await store.persistGeneration('csv_parser', 'parse', generation());
    const file = path.join(root, 'tools', 'csv_parser', 'parse.json');
    const tampered = { ...(await readJson<MethodArtifact>('tools/csv_parser/parse.json')) };
    await writeFile(file, JSON.stringify({ ...tampered, code: 'fetch("https://evil")' }));
    expect(await store.select('csv_parser', 'parse', contract, runtime)).toEqual({
      action: 'generate',
      reason: 'checksum_mismatch',
    });
    expect(await pathExists(file)).toBe(false);
    const [, , moved] = await quarantined();
    expect(moved).toMatch(/^tools\/csv_parser\/parse\.2026-05-01T10-00-00-000Z-[0-9a-f]{6}\.json$/);
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'tool_quarantine',
        file: 'tools/csv_parser/parse.json',
        reason: 'checksum_mismatch: code does not match code_checksum',
      }),
    );
    expect(await store.select('csv_parser', 'parse', contract, runtime)).toEqual({
      action: 'generate',
      reason: 'missing',
    });
  });

  test('incompatible runtime or schema version -> generate, then overwritten', async () => {
    const store = open();
    await store.persistGeneration('csv_parser', 'parse', generation());
    expect(
      await store.select('csv_parser', 'parse', contract, { ...runtime, runtimeVersion: '0.2.0' }),
    ).toEqual({ action: 'generate', reason: 'runtime_incompatible' });
    const file = path.join(root, 'tools', 'csv_parser', 'parse.json');
    await writeFile(file, JSON.stringify({ schema_version: 2, anything: true }));
    expect(await store.select('csv_parser', 'parse', contract, runtime)).toEqual({
      action: 'generate',
      reason: 'schema_version_mismatch',
    });
    const rewritten = await store.persistGeneration('csv_parser', 'parse', generation());
    expect(rewritten.generation_id).toBe('gen-1');
    expect(await quarantined()).toEqual([]);
  });
});

describe('corrupt files are quarantined, never fatal', () => {
  test('a truncated method file is set aside and regenerated', async () => {
    const store = open();
    await store.persistGeneration('csv_parser', 'parse', generation());
    const file = path.join(root, 'tools', 'csv_parser', 'parse.json');
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.slice(0, text.length / 2));
    const load = await store.loadArtifact('csv_parser', 'parse');
    expect(load).toMatchObject({ status: 'quarantined', problem: 'corrupt' });
    expect(load.status === 'quarantined' && load.detail).toMatch(/^not JSON/);
    expect(load.status === 'quarantined' && load.quarantinedTo).toMatch(
      /^quarantine\/tools\/csv_parser\/parse\.2026-05-01T10-00-00-000Z-[0-9a-f]{6}\.json$/,
    );
    expect(
      await readFile(
        path.join(root, load.status === 'quarantined' ? load.quarantinedTo : ''),
        'utf8',
      ),
    ).toBe(text.slice(0, text.length / 2));
    expect(await store.select('csv_parser', 'parse', contract, runtime)).toEqual({
      action: 'generate',
      reason: 'missing',
    });
  });

  test('a method file of the wrong shape or identity is quarantined', async () => {
    const store = open();
    const artifact = await store.persistGeneration('csv_parser', 'parse', generation());
    const file = path.join(root, 'tools', 'csv_parser', 'parse.json');
    await writeFile(file, JSON.stringify({ ...artifact, success_count: -1 }));
    expect(await store.loadArtifact('csv_parser', 'parse')).toMatchObject({
      status: 'quarantined',
      detail: 'field success_count is invalid (-1)',
    });
    await mkdir(path.join(root, 'tools', 'other'), { recursive: true });
    await writeFile(path.join(root, 'tools', 'other', 'parse.json'), JSON.stringify(artifact));
    expect(await store.loadArtifact('other', 'parse')).toMatchObject({
      status: 'quarantined',
      detail: 'holds csv_parser.parse, not other.parse',
    });
  });

  test('a truncated registry is quarantined and rebuilt from the method files', async () => {
    const store = open();
    await store.upsertTool('csv_parser', contract);
    const artifact = await store.persistGeneration('csv_parser', 'parse', generation());
    await store.recordOutcome('csv_parser', 'parse', {
      ok: true,
      programSource: 'persisted',
      generationId: artifact.generation_id,
    });
    await store.persistGeneration('csv_parser', 'format', generation({ code: 'return "";' }));
    const file = path.join(root, 'registry.json');
    await writeFile(file, (await readFile(file, 'utf8')).slice(0, 40));

    const registry = await open().loadRegistry();
    expect(registry.tools.csv_parser).toMatchObject({
      role: 'csv_parser',
      contract,
      methods: ['format', 'parse'],
      success_count: 1,
      usage_count: 1,
    });
    expect(await readJson<Registry>('registry.json')).toEqual(registry);
    expect((await quarantined()).filter((name) => name.startsWith('registry.'))).toHaveLength(1);
  });

  test('a registry with one bad entry keeps the sound ones', async () => {
    const store = open();
    await store.upsertTool('csv_parser', contract);
    await store.upsertTool('web_fetcher', { purpose: 'fetch pages' });
    const file = path.join(root, 'registry.json');
    const registry = JSON.parse(await readFile(file, 'utf8'));
    registry.tools.web_fetcher.usage_count = 'many';
    await writeFile(file, JSON.stringify(registry));
    expect(Object.keys((await store.loadRegistry()).tools)).toEqual(['csv_parser']);
    expect(events.at(-1)).toMatchObject({
      type: 'tool_quarantine',
      file: 'registry.json',
      reason: 'tool "web_fetcher": field usage_count is invalid ("many")',
    });
    expect(Object.keys((await readJson<Registry>('registry.json')).tools)).toEqual(['csv_parser']);
  });

  test('a registry of garbage or another schema version never stops a call', async () => {
    const store = open();
    await writeFile(path.join(root, 'registry.json'), '\u0000\u0001garbage');
    await expect(store.upsertTool('csv_parser', contract)).resolves.toMatchObject({
      role: 'csv_parser',
    });
    await writeFile(
      path.join(root, 'registry.json'),
      JSON.stringify({ schema_version: 99, tools: {} }),
    );
    expect((await store.loadRegistry()).tools).toEqual({});
    expect((await quarantined()).filter((name) => name.startsWith('registry.'))).toHaveLength(2);
  });
});

describe('kill switches', () => {
  test('readArtifacts off: generate, while still writing (shadow mode)', async () => {
    const store = open({ switches: { readArtifacts: false } });
    await store.persistGeneration('csv_parser', 'parse', generation());
    expect(await store.select('csv_parser', 'parse', contract, runtime)).toEqual({
      action: 'generate',
      reason: 'artifact_read_disabled',
    });
    expect(await pathExists(path.join(root, 'tools', 'csv_parser', 'parse.json'))).toBe(true);
  });

  test('readRoles: only the canary roles read persisted code', async () => {
    const store = open({ switches: { readRoles: ['web_fetcher'] } });
    await store.persistGeneration('csv_parser', 'parse', generation());
    await store.persistGeneration('web_fetcher', 'fetch', generation());
    expect((await store.select('csv_parser', 'parse', contract, runtime)).action).toBe('generate');
    expect((await store.select('web_fetcher', 'fetch', contract, runtime)).action).toBe('run');
  });

  test('repair off: stale methods are regenerated', async () => {
    await open().persistGeneration('csv_parser', 'parse', generation());
    const store = open({ switches: { repair: false } });
    expect(await store.select('csv_parser', 'parse', { purpose: 'other' }, runtime)).toEqual({
      action: 'generate',
      reason: 'repair_disabled',
    });
  });

  test('generationOnly: nothing persisted is read and nothing but the log is written', async () => {
    await open().persistGeneration('csv_parser', 'parse', generation());
    const before = await readFile(path.join(root, 'registry.json'), 'utf8');
    const store = open({ switches: { generationOnly: true } });
    expect(await store.select('csv_parser', 'parse', contract, runtime)).toEqual({
      action: 'generate',
      reason: 'generation_only',
    });
    const fresh = await store.persistGeneration('web_fetcher', 'fetch', generation());
    expect(fresh.generation_id).toBe('gen-1');
    await store.upsertTool('web_fetcher', contract);
    await store.recordOutcome('csv_parser', 'parse', { ok: true, programSource: 'generated' });
    expect(await readFile(path.join(root, 'registry.json'), 'utf8')).toBe(before);
    expect(await pathExists(path.join(root, 'tools', 'web_fetcher'))).toBe(false);
    expect(await readFile(path.join(root, 'calls.jsonl'), 'utf8')).toContain('"tool_call"');
  });
});

describe('observability', () => {
  test('every call is one JSON line with the fields of seed 004', async () => {
    const store = open();
    const artifact = await store.persistGeneration('csv_parser', 'parse', generation());
    await store.recordOutcome('csv_parser', 'parse', {
      ok: true,
      programSource: 'persisted',
      generationId: artifact.generation_id,
      durationMs: 12,
    });
    await store.recordOutcome('csv_parser', 'parse', {
      ok: false,
      programSource: 'repaired',
      error: new Error('Error: could not parse input\n    at stack'),
    });
    const lines = (await readFile(path.join(root, 'calls.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as ToolCallEvent);
    expect(lines).toEqual(events);
    expect(lines[0]).toEqual({
      type: 'tool_call',
      at: '2026-05-01T10:00:00.000Z',
      role: 'csv_parser',
      method: 'parse',
      ok: true,
      program_source: 'persisted',
      artifact_hit: true,
      generation_id: 'gen-1',
      artifact_prompt_version: 'prompt-1',
      artifact_contract_fingerprint: contractFingerprint(contract),
      artifact_success_count: 1,
      artifact_failure_count: 0,
      artifact_intrinsic_failure_count: 0,
      artifact_adaptive_failure_count: 0,
      artifact_extrinsic_failure_count: 0,
      artifact_generation_trigger: 'forge',
      repair_attempted: false,
      repair_succeeded: null,
      failure_class: null,
      failure_reason: null,
      duration_ms: 12,
    });
    expect(lines[1]).toMatchObject({
      ok: false,
      program_source: 'repaired',
      artifact_hit: false,
      generation_id: null,
      repair_attempted: true,
      repair_succeeded: false,
      failure_class: 'adaptive',
      failure_reason: 'Error: could not parse input',
    });
  });

  test('a failing observer or an unwritable log never breaks a call', async () => {
    // A directory where the log file should be makes every append fail.
    await mkdir(path.join(root, 'calls.jsonl'));
    const store = open({
      onEvent: () => {
        throw new Error('observer down');
      },
    });
    await expect(
      store.recordOutcome('csv_parser', 'parse', { ok: true, programSource: 'generated' }),
    ).resolves.toBeUndefined();
  });

  test('callLog off writes no log', async () => {
    const store = open({ callLog: false });
    await store.recordOutcome('csv_parser', 'parse', { ok: true, programSource: 'generated' });
    expect(await pathExists(path.join(root, 'calls.jsonl'))).toBe(false);
    expect(events).toHaveLength(1);
  });
});

describe('maintenance operations', () => {
  test('bless restores health and adopts the current contract; --reset-metrics zeroes counts', async () => {
    const store = open();
    const artifact = await store.persistGeneration('csv_parser', 'parse', generation());
    await fail(store, artifact, 'TypeError: x', 3);
    const changed = { purpose: 'new purpose' };
    await store.upsertTool('csv_parser', changed);
    expect((await store.select('csv_parser', 'parse', changed, runtime)).action).toBe('repair');
    const blessed = await store.blessMethod('csv_parser', 'parse');
    expect(blessed).toMatchObject({
      recent_failure_rate: 0,
      contract: changed,
      blessed_at: '2026-05-01T10:00:00.000Z',
      failure_count: 3,
    });
    expect((await store.select('csv_parser', 'parse', changed, runtime)).action).toBe('run');
    const reset = await store.blessMethod('csv_parser', 'parse', { resetMetrics: true });
    expect(reset).toMatchObject({ failure_count: 0, last_failure_class: null });
    await expect(store.blessMethod('csv_parser', 'nothing')).rejects.toThrow(ToolNotFoundError);
  });

  test('quarantineMethod sets the code aside so the next call regenerates', async () => {
    const store = open();
    await store.persistGeneration('csv_parser', 'parse', generation());
    const moved = await store.quarantineMethod('csv_parser', 'parse');
    expect(moved).toMatch(/^quarantine\/tools\/csv_parser\/parse\..*\.json$/);
    expect((await store.select('csv_parser', 'parse', contract, runtime)).action).toBe('generate');
    await expect(store.quarantineMethod('csv_parser', 'parse')).rejects.toThrow(ToolNotFoundError);
  });

  test('archive and restore round-trip; restoring over a live tool conflicts', async () => {
    const store = open();
    await store.upsertTool('csv_parser', contract);
    await store.persistGeneration('csv_parser', 'parse', generation());
    const archived = await store.archiveTool('csv_parser');
    expect(archived).toEqual({
      role: 'csv_parser',
      id: '2026-05-01T10-00-00-000Z',
      location: 'archive/csv_parser/2026-05-01T10-00-00-000Z',
      methods: ['parse'],
    });
    expect(await store.findTool('csv_parser')).toBeUndefined();
    expect((await store.select('csv_parser', 'parse', contract, runtime)).action).toBe('generate');
    expect(await store.listArchives()).toEqual([archived]);

    await store.upsertTool('csv_parser', contract);
    await expect(store.restoreTool('csv_parser')).rejects.toThrow(ToolConflictError);
    await store.archiveTool('csv_parser');
    expect((await store.listArchives('csv_parser')).map((entry) => entry.id)).toEqual([
      '2026-05-01T10-00-00-000Z',
      '2026-05-01T10-00-00-000Z-1',
    ]);

    clock = new Date('2026-06-01T00:00:00.000Z');
    await store.restoreTool('csv_parser', '2026-05-01T10-00-00-000Z');
    expect(await store.findTool('csv_parser')).toMatchObject({
      methods: ['parse'],
      restored_at: '2026-06-01T00:00:00.000Z',
    });
    expect((await store.select('csv_parser', 'parse', contract, runtime)).action).toBe('run');
    await expect(store.restoreTool('csv_parser', 'nope')).rejects.toThrow(ToolNotFoundError);
    await expect(store.archiveTool('unknown_tool')).rejects.toThrow(ToolNotFoundError);
    expect(events.filter((event) => event.type === 'tool_maintenance')).toHaveLength(3);
  });
});
