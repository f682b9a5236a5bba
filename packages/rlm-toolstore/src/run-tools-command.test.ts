import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { runToolsCommand, toolsHelpText } from './run-tools-command.js';
import { createToolStore, type ToolStore } from './tool-store.js';

const runtime = { runtimeVersion: '0.1.0', promptVersion: 'p' };
const now = new Date('2026-05-01T12:00:00.000Z');

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'rlm-toolstore-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function tools(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  return toolsOn(false, ...argv);
}

/** `rlm tools` writing to a terminal (`isTTY`) or to pipes. */
async function toolsOn(
  isTTY: boolean,
  ...argv: string[]
): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runToolsCommand(argv, {
    root,
    now,
    stdout: { write: (text: string) => (out += text), isTTY },
    stderr: { write: (text: string) => (err += text), isTTY },
  });
  return { code, out, err };
}

function storeAt(time: string): ToolStore {
  return createToolStore({ root, now: () => new Date(time) });
}

/** csv_parser.parse healthy, web_fetcher.fetch degraded, summarizer stale, old_tool idle. */
async function seed(): Promise<void> {
  const recent = storeAt('2026-04-30T00:00:00.000Z');
  await recent.upsertTool('csv_parser', { purpose: 'parse CSV text into rows' });
  const parse = await recent.persistGeneration('csv_parser', 'parse', {
    code: 'return rows;',
    contract: { purpose: 'parse CSV text into rows' },
    model: 'model-a',
    trigger: 'forge',
    runtime,
  });
  await recent.recordOutcome('csv_parser', 'parse', {
    ok: true,
    programSource: 'persisted',
    generationId: parse.generation_id,
  });
  const fetch = await recent.persistGeneration('web_fetcher', 'fetch', {
    code: 'return await get(url);',
    contract: { purpose: 'fetch pages' },
    model: 'model-a',
    trigger: 'forge',
    runtime,
  });
  for (let index = 0; index < 3; index++) {
    await recent.recordOutcome('web_fetcher', 'fetch', {
      ok: false,
      programSource: 'persisted',
      generationId: fetch.generation_id,
      error: 'TypeError: page.body is undefined',
    });
  }
  await recent.persistGeneration('summarizer', 'summarize', {
    code: 'return text.slice(0, 100);',
    contract: { purpose: 'summarize' },
    model: 'model-a',
    trigger: 'forge',
    runtime,
  });
  await recent.upsertTool('summarizer', { purpose: 'summarize in three bullet points' });
  await storeAt('2025-10-01T00:00:00.000Z').persistGeneration('old_tool', 'run', {
    code: 'return 0;',
    contract: { purpose: 'something from last year' },
    model: 'model-a',
    trigger: 'forge',
    runtime,
  });
}

describe('rlm tools', () => {
  test('help goes to stdout with exit 0', async () => {
    expect(await tools('--help')).toEqual({ code: 0, out: toolsHelpText, err: '' });
  });

  test('bad input: one line on stderr, exit 2, nothing touched', async () => {
    for (const argv of [[], ['purge'], ['bless', 'nope'], ['prune', '--older-than', 'x']]) {
      const result = await tools(...argv);
      expect(result.code).toBe(2);
      expect(result.out).toBe('');
      expect(result.err).toMatch(/^rlm tools: .+ \(see rlm tools --help\)\n$/);
    }
    expect(await readdir(root)).toEqual([]);
  });

  test('list on an empty store', async () => {
    expect(await tools('list')).toEqual({ code: 0, out: `no tools in ${root}\n`, err: '' });
  });

  test('list shows every method and its status', async () => {
    await seed();
    const { code, out } = await tools('list');
    expect(code).toBe(0);
    expect(out).toBe(
      [
        'TOOL                  STATUS          GENERATION  CALLS  OK    LAST ACTIVE',
        'csv_parser.parse      healthy         gen-1       1      100%  2026-04-30',
        'old_tool.run          healthy         gen-1       0      -     2025-10-01 (unused)',
        'summarizer.summarize  stale_contract  gen-1       0      -     2026-04-30',
        'web_fetcher.fetch     degraded        gen-1       3      0%    2026-04-30',
        '',
      ].join('\n'),
    );
    const json = JSON.parse((await tools('list', '--json')).out);
    expect(json.map((entry: { role: string }) => entry.role)).toEqual([
      'csv_parser',
      'old_tool',
      'summarizer',
      'web_fetcher',
    ]);
    expect(json[3].methods[0]).toMatchObject({
      method: 'fetch',
      status: 'degraded',
      repairs_left: 3,
    });
  });

  test('stale lists what will be repaired or regenerated and what is idle', async () => {
    await seed();
    const { code, out } = await tools('stale');
    expect(code).toBe(0);
    expect(out).toBe(
      [
        'TOOL                  STATUS          DETAIL',
        'old_tool              unused          inactive since 2025-10-01: prune candidate',
        'summarizer.summarize  stale_contract  contract changed since gen-1; repairs on next call (0/3 repairs used)',
        'web_fetcher.fetch     degraded        recent failure rate 0.578125; repairs on next call (0/3 repairs used)',
        '',
      ].join('\n'),
    );
    expect(JSON.parse((await tools('stale', '--json', '--older-than', '1000')).out)).toHaveLength(
      2,
    );
  });

  test('stale on a healthy store', async () => {
    await storeAt('2026-04-30T00:00:00.000Z').upsertTool('csv_parser', {});
    expect(await tools('stale')).toEqual({ code: 0, out: 'nothing stale\n', err: '' });
  });

  test('prune --dry-run reports, prune archives, restore brings back', async () => {
    await seed();
    expect(await tools('prune', '--dry-run')).toEqual({
      code: 0,
      out: 'would archive old_tool (last active 2025-10-01, 1 method)\n',
      err: '',
    });
    expect((await tools('list')).out).toContain('old_tool.run');

    const pruned = await tools('prune');
    expect(pruned).toEqual({
      code: 0,
      out: 'archived old_tool -> archive/old_tool/2026-05-01T12-00-00-000Z (restore: rlm tools restore old_tool 2026-05-01T12-00-00-000Z)\n',
      err: '',
    });
    expect((await tools('list')).out).not.toContain('old_tool');
    expect(await tools('prune')).toEqual({
      code: 0,
      out: 'nothing to prune: no tool inactive for more than 90 days\n',
      err: '',
    });

    expect(await tools('restore', 'old_tool')).toEqual({
      code: 0,
      out: 'restored old_tool from archive/old_tool/2026-05-01T12-00-00-000Z (1 method)\n',
      err: '',
    });
    expect((await tools('list')).out).toContain('old_tool.run          healthy         gen-1');
    // Restoring counts as activity: it is no longer a prune candidate.
    expect((await tools('prune', '--dry-run')).out).toMatch(/^nothing to prune/);
    expect(await tools('restore', 'old_tool')).toEqual({
      code: 1,
      out: '',
      err: 'rlm tools: no archive of old_tool\n',
    });
  });

  test('quarantine, bless and show', async () => {
    await seed();
    expect(await tools('bless', 'web_fetcher.fetch', '--reset-metrics')).toEqual({
      code: 0,
      out: 'blessed web_fetcher.fetch (gen-1), metrics reset\n',
      err: '',
    });
    expect((await tools('list')).out).toMatch(/web_fetcher\.fetch\s+healthy\s+gen-1\s+0 /);

    const shown = await tools('show', 'csv_parser.parse');
    expect(shown.code).toBe(0);
    expect(shown.out).toMatch(/^csv_parser\.parse {2}gen-1 \(forge\)\n/);
    expect(shown.out).toContain('status           healthy, 3 repairs left\n');
    expect(shown.out).toContain(
      'calls            1 (1 ok, 0 failed: 0 intrinsic, 0 adaptive, 0 extrinsic)',
    );
    expect(shown.out).toMatch(/--- code \(sha256:[0-9a-f]{64}\) ---\nreturn rows;\n$/);
    expect(JSON.parse((await tools('show', 'csv_parser.parse', '--json')).out)).toMatchObject({
      code: 'return rows;',
      status: 'healthy',
    });
    const tool = await tools('show', 'csv_parser');
    expect(tool.out).toContain('purpose    parse CSV text into rows\n');
    expect(tool.out).toContain('methods    parse (healthy)\n');

    const quarantined = await tools('quarantine', 'csv_parser.parse');
    expect(quarantined.code).toBe(0);
    expect(quarantined.out).toMatch(
      /^quarantined csv_parser\.parse -> quarantine\/tools\/csv_parser\/parse\.2026-05-01T12-00-00-000Z-[0-9a-f]{6}\.json; its next call regenerates it\n$/,
    );
    expect(await tools('show', 'csv_parser.parse')).toEqual({
      code: 1,
      out: '',
      err: 'rlm tools: no persisted method csv_parser.parse\n',
    });
    expect(await tools('quarantine', 'csv_parser.parse')).toMatchObject({ code: 1 });
    expect(await tools('show', 'nobody')).toEqual({
      code: 1,
      out: '',
      err: 'rlm tools: no tool nobody\n',
    });
  });

  test('flags methods of an incompatible runtime when told the runtime version', async () => {
    await seed();
    let out = '';
    const code = await runToolsCommand(['stale'], {
      root,
      now,
      runtimeVersion: '0.2.0',
      stdout: { write: (text: string) => (out += text) },
      stderr: { write: () => undefined },
    });
    expect(code).toBe(0);
    expect(out).toContain(
      'csv_parser.parse      runtime_incompatible  written for runtime 0.1.0; regenerates on next call',
    );
  });

  test('show on a terminal makes the escape sequences of model-made text visible; pipes get the bytes', async () => {
    const osc52 = '\u001b]52;c;cm0gLXJmIH4=\u0007';
    const title = '\u001b]0;owned\u0007\u001b[2J';
    await storeAt('2026-04-30T00:00:00.000Z').persistGeneration('planted', 'run', {
      code: `return "${osc52}";`,
      contract: { purpose: `looks harmless${title}` },
      model: 'model-a',
      trigger: 'forge',
      runtime,
    });
    const terminal = await toolsOn(true, 'show', 'planted.run');
    expect(terminal.code).toBe(0);
    expect(terminal.out).not.toContain('\u001b');
    expect(terminal.out).not.toContain('\u0007');
    expect(terminal.out).toContain('return "\\x1b]52;c;cm0gLXJmIH4=\\x07";');
    const piped = await toolsOn(false, 'show', 'planted.run');
    expect(piped.out).toContain(`return "${osc52}";`);
    const tool = await toolsOn(true, 'show', 'planted');
    expect(tool.out).toContain('looks harmless\\x1b]0;owned\\x07\\x1b[2J');
  });
});
