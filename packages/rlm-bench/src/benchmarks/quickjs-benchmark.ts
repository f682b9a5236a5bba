import type { Sandbox, SandboxFactory } from '@rlm/core';
import { createQuickJsSandbox } from '@rlm/sandbox-quickjs';
import { createSesSandbox } from '@rlm/sandbox-ses';
import type { Benchmark, BenchRow } from '../benchmark.js';
import { compareRuns } from '../compare-runs.js';
import { computeSetupCode, computeWorkloads } from '../compute-workloads.js';
import { formatQuantity } from '../format-quantity.js';
import { makeContext } from '../make-context.js';
import { median } from '../median.js';
import { startPlainNodeWorker } from '../start-plain-node-worker.js';
import { timeAsync } from '../time-async.js';

const mebibyte = 1024 * 1024;

async function run(sandbox: Sandbox, code: string): Promise<void> {
  const { error } = await sandbox.execute(code);
  if (error !== undefined) throw new Error(`@rlm/bench: sandbox: ${error}`);
}

/** Median time to start a sandbox of `factory` and run `1` in it, in a warm process. */
async function startTimes(factory: SandboxFactory, runs: number): Promise<number> {
  const times: number[] = [];
  for (let index = 0; index <= runs; index++) {
    let sandbox: Sandbox | undefined;
    const ms = await timeAsync(async () => {
      sandbox = await factory({ hostFunctions: {} });
      await sandbox.execute('1');
    });
    await sandbox?.dispose();
    if (index > 0) times.push(ms);
  }
  return median(times);
}

/**
 * The two sandbox adapters side by side: `@rlm/sandbox-quickjs` (QuickJS compiled to
 * WebAssembly, in a worker thread, no JIT) against `@rlm/sandbox-ses` (SES in a worker thread):
 * start, a trivial execute (a round trip to the worker on both), the compute workloads over
 * 5 MB (QuickJS interprets: 50 MB would take minutes), and handing over a 50 MB context.
 */
export const quickjsBenchmark: Benchmark = {
  name: 'quickjs',
  description: '@rlm/sandbox-quickjs beside @rlm/sandbox-ses: start, execute, compute, hand-over',
  async run(options) {
    const runs = Math.min(options.runs, 3);
    const createQuickJs = createQuickJsSandbox();
    const createSes = createSesSandbox();
    const rows: BenchRow[] = [];

    const quickjsStart = await startTimes(createQuickJs, options.runs);
    const sesStart = await startTimes(createSes, options.runs);
    rows.push({
      benchmark: 'quickjs',
      figure: 'QuickJS: new sandbox and its first execute, warm process',
      result: { value: quickjsStart, unit: 'ms' },
      baseline: { value: sesStart, unit: 'ms', label: 'SES sandbox, same factory' },
      ratio: { value: quickjsStart / sesStart, unit: 'x' },
      runs: options.runs,
      note: 'a worker per sandbox on both; neither keeps a spare once its last sandbox is disposed',
    });

    await using quickjs = await createQuickJs({ hostFunctions: {} });
    await using ses = await createSes({ hostFunctions: {} });
    const batch = options.quick ? 300 : 1000;
    for (let index = 0; index < 3000; index++) {
      await quickjs.execute('1 + 1');
      await ses.execute('1 + 1');
    }
    const trivial = await compareRuns(
      options.runs,
      async () => {
        for (let index = 0; index < batch; index++) await quickjs.execute('1 + 1');
      },
      async () => {
        for (let index = 0; index < batch; index++) await ses.execute('1 + 1');
      },
    );
    rows.push({
      benchmark: 'quickjs',
      figure: 'QuickJS: trivial execute (`1 + 1`)',
      result: { value: trivial.subject / batch, unit: 'ms' },
      baseline: { value: trivial.baseline / batch, unit: 'ms', label: 'SES sandbox' },
      ratio: { value: trivial.ratio, unit: 'x' },
      runs: options.runs,
      note: `mean of ${batch} calls a run; a round trip to the worker on both`,
    });

    const handOver = makeContext(50 * mebibyte);
    const handOverTimes = await compareRuns(
      runs,
      () => quickjs.setVariables({ context: handOver }, { readOnly: true }),
      () => ses.setVariables({ context: handOver }, { readOnly: true }),
    );
    rows.push({
      benchmark: 'quickjs',
      figure: 'QuickJS: hand-over of a 50 MB context (`setVariables`)',
      result: { value: handOverTimes.subject, unit: 'ms' },
      baseline: { value: handOverTimes.baseline, unit: 'ms', label: 'SES sandbox' },
      ratio: { value: handOverTimes.ratio, unit: 'x' },
      runs,
    });

    const context = makeContext(5 * mebibyte);
    await using plain = await startPlainNodeWorker();
    await quickjs.setVariables({ context }, { readOnly: true });
    await ses.setVariables({ context }, { readOnly: true });
    await plain.set('context', context);
    await run(quickjs, computeSetupCode);
    await run(ses, computeSetupCode);
    await plain.run(computeSetupCode);
    for (const workload of computeWorkloads) {
      options.log(`  quickjs: ${workload.name}`);
      const compared = await compareRuns(
        runs,
        () => run(quickjs, workload.code),
        () => run(ses, workload.code),
      );
      const plainTimes: number[] = [];
      await plain.run(workload.code);
      for (let index = 0; index < runs; index++) {
        plainTimes.push(await timeAsync(() => plain.run(workload.code)));
      }
      rows.push({
        benchmark: 'quickjs',
        figure: `QuickJS: ${workload.name} over 5 MB`,
        result: { value: compared.subject, unit: 'ms' },
        baseline: { value: compared.baseline, unit: 'ms', label: 'SES sandbox' },
        ratio: { value: compared.ratio, unit: 'x' },
        runs,
        note: `plain Node ${formatQuantity({ value: median(plainTimes), unit: 'ms' })}`,
      });
    }
    return rows;
  },
};
