import { createRLM, type RunUsage } from '@rlm/core';
import { createAnthropicModel } from '@rlm/anthropic';
import { fakeText, fakeToolUse, startFakeMessagesServer } from '@rlm/anthropic/testing';
import { createSesSandbox } from '@rlm/sandbox-ses';
import type { Benchmark } from '../benchmark.js';

const steps = 30;
const target = 0.35;

/** Input tokens as billed: uncached at 1x, cache writes at 1.25x, cache reads at 0.1x. */
function billedInput(usage: RunUsage): number {
  return usage.inputTokens + 1.25 * usage.cacheWriteTokens + 0.1 * usage.cacheReadTokens;
}

/**
 * One scripted run of `steps` model calls through the real Anthropic SDK and the fake Messages
 * API, which emulates the prompt cache: 29 steps that each print about 1,000 characters, then
 * SUBMIT.
 */
async function usageOfRun(promptCaching: boolean): Promise<RunUsage> {
  let request = 0;
  await using server = await startFakeMessagesServer({
    handler: () => {
      request += 1;
      if (request >= steps) return fakeToolUse('SUBMIT', { answer: 'done' });
      return fakeText(
        `Looking at part ${request}.\n\`\`\`repl\nprint('part ${request}: ' + 'observation '.repeat(80))\n\`\`\``,
      );
    },
  });
  const llm = createAnthropicModel({
    apiKey: 'bench-key',
    baseURL: server.url,
    maxRetries: 0,
    promptCaching,
  });
  await using rlm = createRLM({
    model: llm,
    sandbox: createSesSandbox(),
    limits: { maxIterations: steps + 1 },
  });
  const result = await rlm.query('Prompt caching benchmark', 'a small context');
  if (result.usage.modelCalls !== steps) {
    throw new Error(
      `@rlm/bench: the caching run made ${result.usage.modelCalls} model calls, expected ${steps}`,
    );
  }
  return result.usage;
}

/**
 * Billed input tokens of a 30-step run with Anthropic prompt caching against the same run
 * without it, through the real SDK and a fake server that emulates the cache (minimum 1,024
 * tokens, 4 characters a token). Deterministic: one run each.
 */
export const promptCachingBenchmark: Benchmark = {
  name: 'caching',
  description: 'billed input tokens of a 30-step run with and without prompt caching',
  async run() {
    const cached = await usageOfRun(true);
    const uncached = await usageOfRun(false);
    const ratio = billedInput(cached) / billedInput(uncached);
    return [
      {
        benchmark: 'caching',
        figure: `billed input tokens of a ${steps}-step run, prompt caching on`,
        result: { value: Math.round(billedInput(cached)), unit: 'tokens' },
        baseline: {
          value: Math.round(billedInput(uncached)),
          unit: 'tokens',
          label: 'prompt caching off',
        },
        ratio: { value: ratio, unit: 'x' },
        target: { text: `<= ${target}x`, met: ratio <= target },
        runs: 1,
        note: `uncached + 1.25 x written + 0.1 x read; ${cached.cacheReadTokens} read, ${cached.cacheWriteTokens} written, ${cached.inputTokens} uncached; deterministic`,
      },
    ];
  },
};
