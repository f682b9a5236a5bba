import { createSesSandbox } from '@rlm/sandbox-ses';
import type { Benchmark, BenchRow } from '../benchmark.js';
import { compareRuns } from '../compare-runs.js';
import { computeSetupCode, computeWorkloads } from '../compute-workloads.js';
import { makeContext } from '../make-context.js';
import { startPlainNodeWorker } from '../start-plain-node-worker.js';

const mebibyte = 1024 * 1024;

/**
 * Compute over a 50 MB string context inside the sandbox against the same code in plain Node,
 * also in a worker thread (its own realm, not locked down, top-level declarations persisting
 * through `vm.runInThisContext`): regex-heavy, loop-heavy, and loops over variables defined by
 * an earlier execution.
 */
export const computeBenchmark: Benchmark = {
  name: 'compute',
  description: 'compute over a 50 MB context vs plain Node',
  async run(options) {
    const size = 50 * mebibyte;
    const context = makeContext(size);
    await using sandbox = await createSesSandbox()({
      hostFunctions: {},
      limits: { memoryMb: 4096, timeoutMs: 120_000 },
    });
    await using plain = await startPlainNodeWorker();
    await sandbox.setVariables({ context }, { readOnly: true });
    await plain.set('context', context);
    const inSandbox = async (code: string) => {
      const { error } = await sandbox.execute(code);
      if (error !== undefined) throw new Error(`@rlm/bench: sandbox: ${error}`);
    };
    await inSandbox(computeSetupCode);
    await plain.run(computeSetupCode);
    const rows: BenchRow[] = [];
    for (const workload of computeWorkloads) {
      options.log(`  compute: ${workload.name}`);
      const compared = await compareRuns(
        options.runs,
        () => inSandbox(workload.code),
        () => plain.run(workload.code),
      );
      const target = workload.target ?? { maxRatio: 1.5, text: '<= 1.5x' };
      rows.push({
        benchmark: 'compute',
        figure: `${workload.name} over 50 MB`,
        result: { value: compared.subject, unit: 'ms' },
        baseline: { value: compared.baseline, unit: 'ms', label: 'plain Node, worker' },
        ratio: { value: compared.ratio, unit: 'x' },
        target: { text: target.text, met: compared.ratio <= target.maxRatio },
        runs: options.runs,
      });
    }
    return rows;
  },
};
