import { createRLM, defaultMaxConcurrency, keepAliveFetch } from '@rlm/core';
import { createOpenAIModel } from '@rlm/openai';
import {
  type FakeChatRequest,
  fakeChatText,
  limitInFlight,
  startFakeChatCompletionsServer,
} from '@rlm/openai/testing';
import { createSesSandbox } from '@rlm/sandbox-ses';
import OpenAI from 'openai';
import type { Benchmark, BenchRow } from '../benchmark.js';
import { collectRunEvents } from '../collect-run-events.js';
import { median } from '../median.js';

const calls = 64;
const answerMs = 200;

/** The run's own steps, told apart from its llm_query calls by the system prompt. */
const isStep = (request: FakeChatRequest) => JSON.stringify(request.messages[0]).includes('repl');

/**
 * One `createRLM` run through the real OpenAI SDK and a loopback fake API whose one step makes
 * 64 `llm_query` calls at once; each is answered after 200 ms, and the API answers 429 (with
 * `retry-after-ms: 200`) to what arrives while `apiAllows` are being answered. Returns the
 * block's own time (what the sandbox measured) and the 429s.
 */
async function fanOutRun(
  apiAllows: number,
  maxConcurrency: number | undefined,
): Promise<{ ms: number; refused: number }> {
  let steps = 0;
  const limited = limitInFlight(() => fakeChatText('an answer', { delayMs: answerMs }), {
    maxInFlight: apiAllows,
    retryAfterMs: answerMs,
  });
  await using server = await startFakeChatCompletionsServer({
    apiKey: null,
    keepRequests: 1,
    handler: (request, recorded) => {
      if (!isStep(request)) return limited.handler(request, recorded);
      steps += 1;
      return fakeChatText(
        steps === 1
          ? `\`\`\`repl\nconst answers = await Promise.all(Array.from({ length: ${calls} }, (_, i) => llm_query('question ' + i)));\nprint(answers.length)\n\`\`\``
          : 'FINAL(done)',
      );
    },
  });
  await using rlm = createRLM({
    model: createOpenAIModel({
      model: 'bench',
      apiKey: 'bench',
      baseURL: server.url,
      maxRetries: 10,
    }),
    sandbox: createSesSandbox(),
    ...(maxConcurrency === undefined ? {} : { maxConcurrency }),
  });
  const events = await collectRunEvents(rlm, 'Fan-out benchmark', 'a small context');
  const execution = events.find(({ event }) => event.type === 'execution')?.event;
  if (execution?.type !== 'execution' || execution.output.trim() !== String(calls)) {
    throw new Error(`@rlm/bench: the fan-out run failed: ${JSON.stringify(execution)}`);
  }
  return { ms: execution.durationMs, refused: limited.refused };
}

/**
 * The same 64 requests made at once by a bare official OpenAI SDK client over the adapters'
 * transport (`keepAliveFetch`), streamed as the adapter asks, to the same kind of server in the
 * same process: what the machine allows now, without rlm.
 */
async function bareSdkRun(): Promise<number> {
  await using server = await startFakeChatCompletionsServer({
    apiKey: null,
    keepRequests: 1,
    handler: () => fakeChatText('an answer', { delayMs: answerMs }),
  });
  const client = new OpenAI({
    apiKey: 'bench',
    baseURL: server.url,
    maxRetries: 0,
    fetch: keepAliveFetch,
  });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: calls }, async (_, index) => {
      const stream = await client.chat.completions.create({
        model: 'bench',
        messages: [{ role: 'user', content: `question ${index}` }],
        stream: true,
        stream_options: { include_usage: true },
      });
      for await (const _chunk of stream) {
        // Read to the end, as the adapter does.
      }
    }),
  );
  return performance.now() - started;
}

/**
 * Issue 31's fan-out: 64 `llm_query` calls of 200 ms in one block, through the OpenAI adapter
 * and a loopback fake API. With the default cap against 16 at once (the old default, and
 * `rlms`'s), alternating, when the API allows 64; and with the default cap when the API allows
 * only 16 and answers 429 past them, against the ideal 4 x 200 ms.
 */
export const fanOutBenchmark: Benchmark = {
  name: 'fan-out',
  description: '64 llm_query calls of 200 ms at once, the API allowing 64 or 16',
  async run(options) {
    const runs = Math.min(options.runs, 5);
    const adaptive: number[] = [];
    const sixteen: number[] = [];
    const limited: number[] = [];
    const refused: number[] = [];
    const bare: number[] = [];
    await fanOutRun(calls, undefined);
    await bareSdkRun();
    for (let run = 0; run < runs; run++) {
      options.log(`  fan-out: run ${run + 1} of ${runs}`);
      adaptive.push((await fanOutRun(calls, undefined)).ms);
      sixteen.push((await fanOutRun(calls, 16)).ms);
      bare.push(await bareSdkRun());
      const throttled = await fanOutRun(16, undefined);
      limited.push(throttled.ms);
      refused.push(throttled.refused);
    }
    const adaptiveMs = median(adaptive);
    const sixteenMs = median(sixteen);
    const limitedMs = median(limited);
    const bareMs = median(bare);
    const ideal16 = (calls / 16) * answerMs;
    const rows: BenchRow[] = [
      {
        benchmark: 'fan-out',
        figure: `${calls} llm_query of ${answerMs} ms at once, the API allowing ${calls}: the block, default maxConcurrency (${defaultMaxConcurrency})`,
        result: { value: adaptiveMs, unit: 'ms' },
        baseline: { value: sixteenMs, unit: 'ms', label: 'maxConcurrency 16, the old default' },
        ratio: { value: adaptiveMs / sixteenMs, unit: 'x' },
        target: { text: '<= 400 ms', met: adaptiveMs <= 400 },
        runs,
        note: `ideal ${answerMs} ms; OpenAI SDK, loopback fake API`,
      },
      {
        benchmark: 'fan-out',
        figure: `the same block against ${calls} requests at once by a bare OpenAI SDK client (the machine's floor now)`,
        result: { value: adaptiveMs, unit: 'ms' },
        baseline: { value: bareMs, unit: 'ms', label: `bare OpenAI SDK, ${calls} at once` },
        ratio: { value: adaptiveMs / bareMs, unit: 'x' },
        runs,
        note: 'the SDK over keepAliveFetch, the same kind of server in the same process',
      },
      {
        benchmark: 'fan-out',
        figure: `${calls} llm_query of ${answerMs} ms at once, the API allowing 16 (429 + retry-after ${answerMs} ms past them): the block, default maxConcurrency`,
        result: { value: limitedMs, unit: 'ms' },
        baseline: { value: ideal16, unit: 'ms', label: `ideal ${calls} / 16 x ${answerMs}` },
        ratio: { value: limitedMs / ideal16, unit: 'x' },
        runs,
        note: `median 429s a run: ${median(refused)}`,
      },
    ];
    return rows;
  },
};
