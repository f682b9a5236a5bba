import { createRLM, type GenerateRequest } from '@rlm/core';
import { createScriptedModel } from '@rlm/core/testing';
import { createSesSandbox } from '@rlm/sandbox-ses';
import type { Benchmark, BenchRow } from '../benchmark.js';

const iterations = 200;
const reported = [5, 50, 200];

/** Characters a request sends: the system prompt and every message's text. */
function promptChars(request: GenerateRequest): number {
  let total = request.system.length;
  for (const message of request.messages) {
    if (typeof message.content === 'string') {
      total += message.content.length;
      continue;
    }
    for (const part of message.content) {
      total += 'text' in part ? part.text.length : JSON.stringify(part).length;
    }
  }
  return total;
}

/** Model requests of a scripted 200-iteration run, each step printing about 1,000 characters. */
async function requestsOfRun(historyBudgetChars: number | undefined): Promise<GenerateRequest[]> {
  const replies = Array.from(
    { length: iterations },
    (_, step) =>
      `Looking at part ${step}.\n\`\`\`repl\nprint('part ${step}: ' + 'observation '.repeat(80))\n\`\`\``,
  );
  const model = createScriptedModel([...replies, 'FINAL(done)']);
  await using rlm = createRLM({
    model: model,
    sandbox: createSesSandbox(),
    limits: { maxIterations: iterations + 1 },
    ...(historyBudgetChars === undefined ? {} : { historyBudgetChars }),
  });
  await rlm.query('Prompt growth benchmark', 'a small context');
  return [...model.requests];
}

/**
 * Prompt size over a 200-iteration run with the default `historyBudgetChars`, and what the
 * same run would send with an unbounded history. Deterministic: one run.
 */
export const promptGrowthBenchmark: Benchmark = {
  name: 'prompt',
  description: 'prompt size growth over 200 iterations',
  async run() {
    const bounded = await requestsOfRun(undefined);
    const unbounded = await requestsOfRun(Number.MAX_SAFE_INTEGER);
    const rows: BenchRow[] = [];
    for (const iteration of reported) {
      const request = bounded[iteration - 1];
      const unboundedRequest = unbounded[iteration - 1];
      if (request === undefined || unboundedRequest === undefined) {
        throw new Error(`@rlm/bench: the run made no request for iteration ${iteration}`);
      }
      const chars = promptChars(request);
      const unboundedChars = promptChars(unboundedRequest);
      rows.push({
        benchmark: 'prompt',
        figure: `prompt at iteration ${iteration}, default historyBudgetChars`,
        result: { value: chars, unit: 'chars' },
        baseline: { value: unboundedChars, unit: 'chars', label: 'unbounded history' },
        ratio: { value: chars / unboundedChars, unit: 'x' },
        runs: 1,
        note: 'deterministic',
      });
    }
    return rows;
  },
};
