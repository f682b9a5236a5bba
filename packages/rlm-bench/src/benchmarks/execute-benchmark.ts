import { createContext, runInContext } from 'node:vm';
import { createSesSandbox } from '@rlm/sandbox-ses';
import type { Benchmark } from '../benchmark.js';
import { compareRuns } from '../compare-runs.js';
import { startPlainNodeWorker } from '../start-plain-node-worker.js';

const code = '1 + 1';

/**
 * A trivial `execute` round trip (host -> worker -> SES evaluation -> host), per call, against
 * `vm.runInContext` of the same code in the same process, and against the floor of any
 * worker-thread sandbox: a message round trip to a plain worker that runs the same code.
 */
export const executeBenchmark: Benchmark = {
  name: 'execute',
  description: 'trivial execute round trip vs node:vm',
  async run(options) {
    const batch = options.quick ? 300 : 1000;
    await using sandbox = await createSesSandbox()({ hostFunctions: {} });
    await using plain = await startPlainNodeWorker();
    const context = createContext({});
    for (let index = 0; index < 3000; index++) {
      await sandbox.execute(code);
      await plain.run(code);
    }
    const compared = await compareRuns(
      options.runs,
      async () => {
        for (let index = 0; index < batch; index++) await sandbox.execute(code);
      },
      () => {
        for (let index = 0; index < batch; index++) runInContext(code, context);
      },
    );
    const perCall = compared.subject / batch;
    const floor = await compareRuns(
      options.runs,
      async () => {
        for (let index = 0; index < batch; index++) await sandbox.execute(code);
      },
      async () => {
        for (let index = 0; index < batch; index++) await plain.run(code);
      },
    );
    return [
      {
        benchmark: 'execute',
        figure: `trivial execute round trip (\`${code}\`)`,
        result: { value: perCall, unit: 'ms' },
        baseline: { value: compared.baseline / batch, unit: 'ms', label: 'vm.runInContext' },
        ratio: { value: compared.ratio, unit: 'x' },
        target: { text: '< 0.2 ms', met: perCall < 0.2 },
        runs: options.runs,
        note: `mean of ${batch} calls a run`,
      },
      {
        benchmark: 'execute',
        figure: 'the same round trip against its floor: a plain worker thread running the code',
        result: { value: floor.subject / batch, unit: 'ms' },
        baseline: {
          value: floor.baseline / batch,
          unit: 'ms',
          label: 'postMessage + vm.runInThisContext',
        },
        ratio: { value: floor.ratio, unit: 'x' },
        runs: options.runs,
        note: `mean of ${batch} calls a run`,
      },
    ];
  },
};
