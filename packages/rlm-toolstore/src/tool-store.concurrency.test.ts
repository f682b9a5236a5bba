import { fork } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { createToolStore } from './tool-store.js';

const workerScript = fileURLToPath(
  new URL('./tool-store.concurrency.fixture.mjs', import.meta.url),
);
const workers = 6;
const increments = 25;

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'rlm-toolstore-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

function run(worker: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = fork(workerScript, [root, String(worker), String(increments)], {
      execArgv: [],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`worker ${worker} exited ${code}: ${stderr}`)),
    );
  });
}

test(`${workers} processes writing the same method and the registry lose no update`, async () => {
  const store = createToolStore({ root });
  const runtime = { runtimeVersion: '0.1.0', promptVersion: 'p' };
  await store.persistGeneration('shared', 'count', {
    code: 'return 1;',
    contract: { purpose: 'shared' },
    model: 'parent',
    trigger: 'forge',
    runtime,
  });

  await Promise.all(Array.from({ length: workers }, (_, worker) => run(worker)));

  const total = workers * increments;
  const count = await store.loadArtifact('shared', 'count');
  expect(count.status === 'found' && count.artifact.success_count).toBe(total);

  const registry = await store.loadRegistry();
  expect(registry.tools.shared).toMatchObject({ usage_count: total, success_count: total });
  expect(registry.tools.shared?.methods).toEqual(['build', 'count']);
  for (let worker = 0; worker < workers; worker++) {
    expect(registry.tools[`role_${worker}`]?.contract).toEqual({
      purpose: `written by worker ${worker}`,
    });
  }

  const build = await store.loadArtifact('shared', 'build');
  expect(build.status).toBe('found');
  if (build.status === 'found') {
    expect(build.artifact.generation_id).toBe(`gen-${workers}`);
    expect(build.artifact.history.map((entry) => entry.id)).toEqual([
      `gen-${workers}`,
      `gen-${workers - 1}`,
      `gen-${workers - 2}`,
    ]);
    expect(build.artifact.history[0]?.parent_id).toBe(`gen-${workers - 1}`);
  }

  const log = (await readFile(path.join(root, 'calls.jsonl'), 'utf8')).trim().split('\n');
  expect(log).toHaveLength(total);
  for (const line of log) expect(JSON.parse(line)).toMatchObject({ type: 'tool_call' });

  const leftovers = (await readdir(root, { recursive: true }))
    .map(String)
    .filter((file) => /\.(lock|tmp|break)$/.test(file));
  expect(leftovers).toEqual([]);
  expect((await readdir(root)).sort()).toEqual(['calls.jsonl', 'registry.json', 'tools']);
});
