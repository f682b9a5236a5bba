import { createSesSandbox } from '@rlm/sandbox-ses';
import { getQuickJS, type QuickJSContext } from 'quickjs-emscripten';
import type { Benchmark, BenchRow } from '../benchmark.js';
import { compareRuns } from '../compare-runs.js';
import { computeSetupCode, computeWorkloads } from '../compute-workloads.js';
import { formatQuantity } from '../format-quantity.js';
import { makeContext } from '../make-context.js';
import { median } from '../median.js';
import { startPlainNodeWorker } from '../start-plain-node-worker.js';
import { timeAsync } from '../time-async.js';

const mebibyte = 1024 * 1024;

function evaluate(vm: QuickJSContext, code: string): void {
  const result = vm.evalCode(code);
  if (result.error) {
    const error: unknown = vm.dump(result.error);
    result.error.dispose();
    throw new Error(`@rlm/bench: QuickJS: ${JSON.stringify(error)}`);
  }
  result.value.dispose();
}

/**
 * Another sandbox in the same run: QuickJS compiled to WebAssembly (`quickjs-emscripten`, in
 * process, no JIT), on the same trivial execute and the same compute workloads over a 2 MB
 * context (QuickJS interprets: 50 MB would take minutes), against the SES sandbox.
 */
export const quickjsBenchmark: Benchmark = {
  name: 'quickjs',
  description: 'quickjs-emscripten on the same execute and compute',
  async run(options) {
    const runs = Math.min(options.runs, 3);
    const size = 2 * mebibyte;
    const context = makeContext(size);
    const QuickJS = await getQuickJS();
    const vm = QuickJS.newContext();
    try {
      await using sandbox = await createSesSandbox()({ hostFunctions: {} });
      await using plain = await startPlainNodeWorker();
      const inSandbox = async (code: string) => {
        const { error } = await sandbox.execute(code);
        if (error !== undefined) throw new Error(`@rlm/bench: sandbox: ${error}`);
      };
      const batch = options.quick ? 300 : 1000;
      // Warm both up as the execute benchmark does (JIT, and the spare worker's start).
      for (let index = 0; index < 3000; index++) {
        evaluate(vm, '1 + 1');
        await sandbox.execute('1 + 1');
      }
      const trivial = await compareRuns(
        options.runs,
        () => {
          for (let index = 0; index < batch; index++) evaluate(vm, '1 + 1');
        },
        async () => {
          for (let index = 0; index < batch; index++) await sandbox.execute('1 + 1');
        },
      );
      const rows: BenchRow[] = [
        {
          benchmark: 'quickjs',
          figure: 'QuickJS trivial execute (`1 + 1`, in process)',
          result: { value: trivial.subject / batch, unit: 'ms' },
          baseline: { value: trivial.baseline / batch, unit: 'ms', label: 'SES sandbox' },
          ratio: { value: trivial.ratio, unit: 'x' },
          runs: options.runs,
          note: `mean of ${batch} calls a run`,
        },
      ];
      const text = vm.newString(context);
      vm.setProp(vm.global, 'context', text);
      text.dispose();
      evaluate(vm, computeSetupCode);
      await sandbox.setVariables({ context }, { readOnly: true });
      await inSandbox(computeSetupCode);
      await plain.set('context', context);
      await plain.run(computeSetupCode);
      for (const workload of computeWorkloads) {
        options.log(`  quickjs: ${workload.name}`);
        const compared = await compareRuns(
          runs,
          () => evaluate(vm, workload.code),
          () => inSandbox(workload.code),
        );
        const plainTimes: number[] = [];
        await plain.run(workload.code);
        for (let run = 0; run < runs; run++) {
          plainTimes.push(await timeAsync(() => plain.run(workload.code)));
        }
        rows.push({
          benchmark: 'quickjs',
          figure: `QuickJS ${workload.name} over 2 MB`,
          result: { value: compared.subject, unit: 'ms' },
          baseline: { value: compared.baseline, unit: 'ms', label: 'SES sandbox' },
          ratio: { value: compared.ratio, unit: 'x' },
          runs,
          note: `plain Node ${formatQuantity({ value: median(plainTimes), unit: 'ms' })}`,
        });
      }
      return rows;
    } finally {
      vm.dispose();
    }
  },
};
