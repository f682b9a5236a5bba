import type { Worker } from 'node:worker_threads';
import { describe, expect, test } from 'vitest';
import { WorkerPool } from './worker-pool.js';

/** A worker that says what it was started with, then waits. */
const workerUrl = new URL(
  `data:text/javascript,${encodeURIComponent(
    "import { parentPort, workerData } from 'node:worker_threads'; parentPort.postMessage({ workerData, env: Object.keys(process.env).length }); setInterval(() => {}, 1000);",
  )}`,
);

const exited = (worker: Worker) => worker.threadId === -1;

function firstMessage(worker: Worker): Promise<unknown> {
  return new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

describe('WorkerPool', () => {
  test('no spare while one worker was taken; from the second on, take hands out the spare and prepareSpare makes a fresh one', async () => {
    const pool = new WorkerPool({ workerUrl });
    pool.open();
    const first = pool.take(64);
    pool.prepareSpare(64);
    expect(pool.spare).toBeUndefined();
    const second = pool.take(64);
    expect(second).not.toBe(first);
    pool.prepareSpare(64);
    const spare = pool.spare as Worker;
    expect(spare).toBeDefined();
    expect(pool.take(64)).toBe(spare);
    expect(pool.spare).toBeUndefined();
    pool.prepareSpare(64);
    const next = pool.spare as Worker;
    expect(next).not.toBe(spare);
    await Promise.all([first.terminate(), second.terminate(), spare.terminate()]);
    await pool.close();
    expect(exited(next)).toBe(true);
  });

  test('takeStarting prepares the spare once its start is marked ready, and none after a failed start', async () => {
    const pool = new WorkerPool({ workerUrl });
    pool.open();
    const first = pool.takeStarting<string[]>(64);
    const failed = pool.takeStarting<string[]>(64);
    failed.failStart(new Error('the worker failed to start'));
    await expect(failed.ready).rejects.toThrow('the worker failed to start');
    expect(pool.spare).toBeUndefined();
    const second = pool.takeStarting<string[]>(64);
    expect(pool.spare).toBeUndefined();
    second.markReady(['lost']);
    await expect(second.ready).resolves.toEqual(['lost']);
    const spare = pool.spare as Worker;
    expect(spare).toBeDefined();
    await Promise.all([first, failed, second].map(({ worker }) => worker.terminate()));
    await pool.close();
    expect(exited(spare)).toBe(true);
  });

  test('a spare of another memory limit is not handed out, and is replaced', async () => {
    const pool = new WorkerPool({ workerUrl });
    pool.open();
    const taken = [pool.take(64), pool.take(64)];
    pool.prepareSpare(64);
    const small = pool.spare as Worker;
    const large = pool.take(128);
    expect(large).not.toBe(small);
    pool.prepareSpare(128);
    expect(pool.spare).not.toBe(small);
    await Promise.all([large, ...taken].map((worker) => worker.terminate()));
    await pool.close();
    expect(exited(small)).toBe(true);
  });

  test('workers start with the settings’ data and limits, an empty environment, and onStart sees each', async () => {
    const seen: Worker[] = [];
    const pool = new WorkerPool({
      workerUrl,
      workerData: (memoryMb) => ({ memoryMb }),
      resourceLimits: (memoryMb) => ({ maxOldGenerationSizeMb: 2 * memoryMb }),
      onStart: (worker) => seen.push(worker),
    });
    pool.open();
    const worker = pool.take(64);
    expect(seen).toEqual([worker]);
    expect(worker.resourceLimits?.maxOldGenerationSizeMb).toBe(128);
    expect(await firstMessage(worker)).toEqual({ workerData: { memoryMb: 64 }, env: 0 });
    await worker.terminate();
    await pool.close();
  });

  test('keeps no spare while no sandbox is open, and the last close ends it', async () => {
    const pool = new WorkerPool({ workerUrl });
    const taken = [pool.take(64), pool.take(64)];
    pool.prepareSpare(64);
    expect(pool.spare).toBeUndefined();
    pool.open();
    pool.open();
    pool.prepareSpare(64);
    const spare = pool.spare as Worker;
    await pool.close();
    expect(exited(spare)).toBe(false);
    await pool.close();
    expect(pool.spare).toBeUndefined();
    expect(exited(spare)).toBe(true);
    await Promise.all(taken.map((worker) => worker.terminate()));
  });
});
