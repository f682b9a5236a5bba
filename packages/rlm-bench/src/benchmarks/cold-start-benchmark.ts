import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createSesSandbox } from '@rlm/sandbox-ses';
import type { Benchmark } from '../benchmark.js';
import { median } from '../median.js';
import { timeAsync } from '../time-async.js';

const run = promisify(execFile);
const probe = fileURLToPath(new URL('./cold-start-probe.js', import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function probeFreshProcess(emptyWorker: boolean): Promise<number> {
  const { stdout } = await run(process.execPath, emptyWorker ? [probe, '--empty-worker'] : [probe]);
  return Number(stdout.trim());
}

/**
 * Sandbox start: the first sandbox of a fresh process, a new sandbox of a new factory in a warm
 * process, and a `sub_rlm` child's sandbox while its parent's sandbox is running (the factory
 * had time to prepare).
 */
export const coldStartBenchmark: Benchmark = {
  name: 'start',
  description: 'sandbox cold start and child sandbox start',
  async run(options) {
    const fresh: number[] = [];
    const emptyWorker: number[] = [];
    // Fresh processes are cheap and noisy: twice the runs.
    for (let index = 0; index < options.runs * 2; index++) {
      fresh.push(await probeFreshProcess(false));
      emptyWorker.push(await probeFreshProcess(true));
    }
    const newFactory: number[] = [];
    for (let index = 0; index <= options.runs; index++) {
      const createSandbox = createSesSandbox();
      let sandbox: Awaited<ReturnType<typeof createSandbox>> | undefined;
      const ms = await timeAsync(async () => {
        sandbox = await createSandbox({ hostFunctions: {} });
      });
      await sandbox?.dispose();
      if (index > 0) newFactory.push(ms);
    }
    const createSandbox = createSesSandbox();
    const parent = await createSandbox({ hostFunctions: {} });
    await parent.execute('const warm = 1');
    const child: number[] = [];
    try {
      for (let index = 0; index < options.runs * 2; index++) {
        await sleep(300);
        let sandbox: Awaited<ReturnType<typeof createSandbox>> | undefined;
        child.push(
          await timeAsync(async () => {
            sandbox = await createSandbox({ hostFunctions: {} });
          }),
        );
        await sandbox?.execute('1');
        await sandbox?.dispose();
      }
    } finally {
      await parent.dispose();
    }
    const freshMs = median(fresh);
    const emptyMs = median(emptyWorker);
    const childMs = median(child);
    const factoryMs = median(newFactory);
    return [
      {
        benchmark: 'start',
        figure: 'cold start: first sandbox of a fresh process (worker ready, lockdown done)',
        result: { value: freshMs, unit: 'ms' },
        baseline: { value: emptyMs, unit: 'ms', label: 'empty worker thread, fresh process' },
        ratio: { value: freshMs / emptyMs, unit: 'x' },
        target: { text: '< 100 ms', met: freshMs < 100 },
        runs: fresh.length,
      },
      {
        benchmark: 'start',
        figure: 'new sandbox of a new factory in a warm process',
        result: { value: factoryMs, unit: 'ms' },
        target: { text: '< 100 ms', met: factoryMs < 100 },
        runs: newFactory.length,
      },
      {
        benchmark: 'start',
        figure: "sub_rlm child's sandbox while the parent's runs",
        result: { value: childMs, unit: 'ms' },
        baseline: { value: factoryMs, unit: 'ms', label: 'new sandbox, new factory' },
        ratio: { value: childMs / factoryMs, unit: 'x' },
        target: { text: '< 10 ms', met: childMs < 10 },
        runs: child.length,
      },
    ];
  },
};
