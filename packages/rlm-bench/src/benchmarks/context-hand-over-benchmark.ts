import { createSesSandbox } from '@rlm/sandbox-ses';
import type { Benchmark } from '../benchmark.js';
import { makeContext } from '../make-context.js';
import { median } from '../median.js';
import { startPlainNodeWorker } from '../start-plain-node-worker.js';
import { startRssSampler } from '../start-rss-sampler.js';
import { timeAsync } from '../time-async.js';

const mebibyte = 1024 * 1024;

/**
 * A 256 MB string context made available to model code: `setVariables` and the first
 * `execute` that reads it, with the process's peak resident memory over the context size;
 * against posting the same string to a plain worker thread.
 */
export const contextHandOverBenchmark: Benchmark = {
  name: 'context',
  description: '256 MB context hand-over',
  async run(options) {
    const size = 256 * mebibyte;
    const context = makeContext(size);
    await using sampler = await startRssSampler();
    const runs = Math.min(options.runs, 3);
    const sandboxTimes: number[] = [];
    const sandboxPeaks: number[] = [];
    const plainTimes: number[] = [];
    const plainPeaks: number[] = [];
    for (let run = 0; run < runs; run++) {
      {
        await using sandbox = await createSesSandbox()({
          hostFunctions: {},
          limits: { memoryMb: 2048 },
        });
        const before = await sampler.reset();
        sandboxTimes.push(
          await timeAsync(async () => {
            await sandbox.setVariables({ context }, { readOnly: true });
            const { output } = await sandbox.execute('context.length');
            if (output !== String(size)) throw new Error(`@rlm/bench: sandbox saw ${output}`);
          }),
        );
        sandboxPeaks.push((await sampler.peak()) - before);
      }
      {
        await using plain = await startPlainNodeWorker();
        const before = await sampler.reset();
        plainTimes.push(
          await timeAsync(async () => {
            await plain.set('context', context);
            await plain.run('context.length');
          }),
        );
        plainPeaks.push((await sampler.peak()) - before);
      }
    }
    const time = median(sandboxTimes);
    const plainTime = median(plainTimes);
    const peak = median(sandboxPeaks) / size;
    const plainPeak = median(plainPeaks) / size;
    return [
      {
        benchmark: 'context',
        figure: '256 MB context: setVariables + first execute',
        result: { value: time, unit: 'ms' },
        baseline: { value: plainTime, unit: 'ms', label: 'postMessage to a plain worker' },
        ratio: { value: time / plainTime, unit: 'x' },
        runs,
      },
      {
        benchmark: 'context',
        figure: '256 MB context: peak RSS growth over the context size',
        result: { value: peak, unit: 'x' },
        baseline: { value: plainPeak, unit: 'x', label: 'postMessage to a plain worker' },
        ratio: { value: peak / plainPeak, unit: 'x' },
        runs,
      },
    ];
  },
};
