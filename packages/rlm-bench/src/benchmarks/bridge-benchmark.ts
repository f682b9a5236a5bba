import { createRLM } from '@rlm/core';
import { createScriptedModel } from '@rlm/core/testing';
import { createSesSandbox } from '@rlm/sandbox-ses';
import type { Benchmark, BenchRow } from '../benchmark.js';
import { collectRunEvents } from '../collect-run-events.js';
import { median } from '../median.js';
import { timeAsync } from '../time-async.js';

const calls = 10_000;
const code = `const answers = await Promise.all(Array.from({ length: ${calls} }, (_, i) => llm_query('question ' + i)));
print(answers.length)`;

/**
 * Milliseconds the sandbox took to run ${calls} `llm_query` calls through `Promise.all`, in a
 * full `createRLM` run (scheduler, concurrency gate, budget, events).
 */
async function bridgeRun(delayMs: number, maxConcurrency: number): Promise<number> {
  await using rlm = createRLM({
    model: createScriptedModel([`\`\`\`repl\n${code}\n\`\`\``, 'FINAL(done)']),
    subModel: createScriptedModel([], { fallback: () => ({ text: 'ok', delayMs }) }),
    sandbox: createSesSandbox(),
    limits: { maxConcurrency },
    commandQueue: { maxPending: calls },
  });
  const events = await collectRunEvents(rlm, 'Bridge benchmark', 'a small context');
  const execution = events.find(({ event }) => event.type === 'execution')?.event;
  if (execution?.type !== 'execution' || execution.output.trim() !== String(calls)) {
    throw new Error(`@rlm/bench: the bridge run failed: ${JSON.stringify(execution)}`);
  }
  return execution.durationMs;
}

/**
 * `llm_query` through the bridge: 10,000 calls in `Promise.all` against an instant scripted
 * model (calls per second, against the same calls made on the host), and against a 20 ms
 * model at concurrency 64 (efficiency against the ideal 10,000 x 20 / 64 ms).
 */
export const bridgeBenchmark: Benchmark = {
  name: 'bridge',
  description: '10,000 llm_query calls through the bridge',
  async run(options) {
    const instant: number[] = [];
    const direct: number[] = [];
    const model = createScriptedModel([], { fallback: () => 'ok' });
    await bridgeRun(0, 16);
    for (let run = 0; run < options.runs; run++) {
      instant.push(await bridgeRun(0, 16));
      direct.push(
        await timeAsync(() =>
          Promise.all(
            Array.from({ length: calls }, (_, i) =>
              model.generate({
                system: '',
                messages: [{ role: 'user', content: `question ${i}` }],
              }),
            ),
          ),
        ),
      );
    }
    const slowRuns = options.quick ? 1 : Math.min(options.runs, 3);
    const slow: number[] = [];
    for (let run = 0; run < slowRuns; run++) slow.push(await bridgeRun(20, 64));
    const rate = (ms: number) => (calls * 1000) / ms;
    const instantRate = rate(median(instant));
    const directRate = rate(median(direct));
    const ideal = (calls * 20) / 64;
    const efficiency = ideal / median(slow);
    const rows: BenchRow[] = [
      {
        benchmark: 'bridge',
        figure: `${calls.toLocaleString('en-US')} llm_query via Promise.all, instant model`,
        result: { value: instantRate, unit: 'calls/s' },
        baseline: { value: directRate, unit: 'calls/s', label: 'the same calls on the host' },
        ratio: { value: instantRate / directRate, unit: 'x' },
        runs: options.runs,
      },
      {
        benchmark: 'bridge',
        figure: `${calls.toLocaleString('en-US')} llm_query, 20 ms model, concurrency 64`,
        result: { value: median(slow), unit: 'ms' },
        baseline: { value: ideal, unit: 'ms', label: 'ideal 10,000 x 20 / 64' },
        ratio: { value: efficiency, unit: 'x' },
        runs: slowRuns,
        note: 'ratio = efficiency, ideal / measured',
      },
    ];
    return rows;
  },
};
