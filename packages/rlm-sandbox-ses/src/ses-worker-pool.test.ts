import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Worker } from 'node:worker_threads';
import { describe, expect, test } from 'vitest';
import { SesSandbox } from './ses-sandbox.js';
import type { WorkerPool } from '@rlm/core/sandbox-support';
import { createSesWorkerPool, sesYoungGenerationMb } from './ses-worker-pool.js';
import type { WorkerMessage } from './worker-protocol.js';

// Tests run the built worker: `pnpm build` (turbo runs it before `test`).
const workerUrl = new URL('../dist/worker.js', import.meta.url);

/** Resolves when `worker` has loaded SES and locked down: with whether it used a code cache. */
function started(worker: Worker): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: WorkerMessage) => {
      if (message.type !== 'started') return;
      worker.off('message', onMessage);
      resolve(message.usedCodeCache);
    };
    worker.on('message', onMessage);
    worker.once('error', reject);
  });
}

/**
 * Watches each spare `pool` prepares from the moment it is made, so that its `started` message
 * cannot come before the listener: returns, for a spare, the promise of {@link started}.
 */
function watchSpares(pool: WorkerPool): (spare: Worker) => Promise<boolean> {
  const starts = new WeakMap<Worker, Promise<boolean>>();
  const prepareSpare = pool.prepareSpare.bind(pool);
  pool.prepareSpare = (memoryMb) => {
    prepareSpare(memoryMb);
    const spare = pool.spare;
    if (spare !== undefined && !starts.has(spare)) starts.set(spare, started(spare));
  };
  return (spare) => starts.get(spare) ?? Promise.reject(new Error('not a spare of this pool'));
}

const exited = (worker: Worker) => worker.threadId === -1;

describe('createSesWorkerPool', () => {
  test('workers after the first of the process compile SES from its code cache', async () => {
    const pool = createSesWorkerPool(workerUrl);
    pool.open();
    const first = pool.take(256);
    const cacheSent = new Promise<void>((resolve) => {
      first.on('message', (message: WorkerMessage) => {
        if (message.type === 'code-cache') resolve();
      });
    });
    // An earlier test may have made the process's cache already; else this worker makes it.
    if (!(await started(first))) await cacheSent;
    const second = pool.take(256);
    expect(await started(second)).toBe(true);
    await Promise.all([first.terminate(), second.terminate()]);
    await pool.close();
  });
});

test('a worker gets the memory limit as its old generation and a small young generation', async () => {
  const pool = createSesWorkerPool(workerUrl);
  pool.open();
  const worker = pool.take(96);
  await started(worker);
  expect(worker.resourceLimits).toMatchObject({
    maxOldGenerationSizeMb: 96,
    maxYoungGenerationSizeMb: sesYoungGenerationMb,
  });
  await worker.terminate();
  await pool.close();
});

describe('sandboxes and their pool', () => {
  const config = (pool: WorkerPool) => ({
    pool,
    snapshotLimitBytes: 1024 * 1024,
    transferLimitBytes: 1024 * 1024,
  });

  test('one sandbox keeps no spare; a second starts its own and leaves a spare, which a third takes; disposing ends all', async () => {
    const pool = createSesWorkerPool(workerUrl);
    const parent = await SesSandbox.create({ hostFunctions: {} }, config(pool));
    expect((await parent.execute('1')).output).toBe('1');
    expect(pool.spare).toBeUndefined();
    const first = await SesSandbox.create({ hostFunctions: {} }, config(pool));
    expect((await first.execute('2')).output).toBe('2');
    const spare = pool.spare as Worker;
    expect(spare).toBeDefined();
    await first.dispose();
    const child = await SesSandbox.create({ hostFunctions: {} }, config(pool));
    expect(exited(spare)).toBe(false);
    expect(pool.spare).not.toBe(spare);
    expect((await child.execute('1 + 1')).output).toBe('2');
    const nextSpare = pool.spare as Worker;
    await child.dispose();
    expect(exited(spare)).toBe(true);
    expect(exited(nextSpare)).toBe(false);
    await parent.dispose();
    expect(exited(nextSpare)).toBe(true);
    expect(pool.spare).toBeUndefined();
  });

  test('a first restart after a timeout starts a worker; the next takes the spare', async () => {
    const pool = createSesWorkerPool(workerUrl);
    const spareStarted = watchSpares(pool);
    const sandbox = await SesSandbox.create({ hostFunctions: {} }, config(pool));
    try {
      await sandbox.execute('const kept = 41');
      expect(pool.spare).toBeUndefined();
      const first = await sandbox.execute('while (true) {}', { timeoutMs: 100 });
      expect(first.error).toMatch(/timed out/);
      expect((await sandbox.execute('kept')).output).toBe('41');
      const spare = pool.spare as Worker;
      await spareStarted(spare);
      const result = await sandbox.execute('while (true) {}', { timeoutMs: 100 });
      expect(result.error).toMatch(/timed out/);
      expect(pool.spare).not.toBe(spare);
      expect(exited(spare)).toBe(false);
      expect((await sandbox.execute('kept + 1')).output).toBe('42');
    } finally {
      await sandbox.dispose();
    }
  });

  test('neither a sandbox left open nor its spare keeps the process alive', async () => {
    const index = fileURLToPath(new URL('../dist/index.js', import.meta.url));
    const script = `
      const { createSesSandbox } = await import(${JSON.stringify(index)});
      const sandbox = await createSesSandbox()({ hostFunctions: {} });
      await sandbox.execute('1');
      await new Promise((resolve) => setTimeout(resolve, 500));
    `;
    const run = promisify(execFile);
    await expect(
      run(process.execPath, ['--input-type=module', '-e', script], { timeout: 20_000 }),
    ).resolves.toBeDefined();
  });
});
