import { createRLM, type RlmEvent } from '@rlm/core';
import { createOpenAIModel } from '@rlm/openai';
import {
  type FakeChatRequest,
  fakeChatText,
  limitInFlight,
  startFakeChatCompletionsServer,
} from '@rlm/openai/testing';
import { describe, expect, test } from 'vitest';
import { sandboxFactory } from './sandbox-under-test.js';

const repl = (code: string) => `\`\`\`repl\n${code}\n\`\`\``;
const apiKey = 'sk-proj-integration-key-never-leaks';

/** The run's own steps, told apart from its llm_query calls by the system prompt. */
const isStep = (request: FakeChatRequest) => JSON.stringify(request.messages[0]).includes('repl');

/**
 * A run whose one step makes `calls` llm_query calls at once, through the real OpenAI SDK to a
 * fake API that answers each after 50 ms and refuses with 429 (retry-after 100 ms) whatever
 * arrives while `maxInFlight` are being answered. With `holdUntil`, the first answers wait
 * until that many requests are in flight (at most 20 s): how many the client sends at once does
 * not then depend on how fast the machine sends them.
 */
async function fanOut(options: {
  calls: number;
  maxInFlight: number;
  maxConcurrency?: number;
  holdUntil?: number;
}) {
  let steps = 0;
  let arrived = 0;
  let openBarrier = () => {};
  const barrier = new Promise<void>((resolve) => {
    openBarrier = resolve;
    setTimeout(resolve, 20_000).unref();
  });
  const limited = limitInFlight(
    async () => {
      arrived += 1;
      if (arrived === options.holdUntil) openBarrier();
      if (options.holdUntil !== undefined) await barrier;
      return fakeChatText('an answer', { delayMs: 50 });
    },
    { maxInFlight: options.maxInFlight, retryAfterMs: 100 },
  );
  await using server = await startFakeChatCompletionsServer({
    apiKey,
    handler: (request, recorded) => {
      if (!isStep(request)) return limited.handler(request, recorded);
      steps += 1;
      return fakeChatText(
        steps === 1
          ? repl(
              `const answers = await llm_query_batched(Array.from({ length: ${options.calls} }, (_, i) => 'question ' + i));\nprint(answers.filter((answer) => answer === 'an answer').length)`,
            )
          : 'FINAL(done)',
      );
    },
  });
  const llm = createOpenAIModel({ model: 'gpt-4.1', apiKey, baseURL: server.url, maxRetries: 8 });
  await using rlm = createRLM({
    model: llm,
    sandbox: sandboxFactory,
    ...(options.maxConcurrency === undefined
      ? {}
      : { limits: { maxConcurrency: options.maxConcurrency } }),
  });
  const events: RlmEvent[] = [];
  for await (const event of rlm.queryStream('Ask many questions', 'a context')) events.push(event);
  const output = events.find((event) => event.type === 'execution');
  return {
    events,
    output: output?.type === 'execution' ? output.output.trim() : undefined,
    peakInFlight: limited.peakInFlight,
    refused: limited.refused,
    concurrency: events.flatMap((event) => (event.type === 'concurrency' ? [event] : [])),
  };
}

describe('adaptive concurrency of model calls (llm_query fan-out, a rate-limited API)', () => {
  test('by default 64 calls go out at once when the API allows them', async () => {
    const run = await fanOut({ calls: 64, maxInFlight: 64, holdUntil: 64 });
    expect(run.output).toBe('64');
    expect(run.refused).toBe(0);
    expect(run.peakInFlight).toBe(64);
    // Nothing changed: no concurrency event.
    expect(run.concurrency).toEqual([]);
  });

  test('429s halve the level and the calls retry until all are answered; the level climbs back', async () => {
    const run = await fanOut({ calls: 120, maxInFlight: 10, maxConcurrency: 40, holdUntil: 10 });
    expect(run.output).toBe('120');
    expect(run.refused).toBeGreaterThan(0);
    expect(run.peakInFlight).toBeLessThanOrEqual(10);
    const reasons = run.concurrency.map((event) => event.reason);
    expect(reasons[0]).toBe('rate-limited');
    expect(reasons).toContain('raised');
    const throttled = run.concurrency.find((event) => event.reason === 'rate-limited');
    expect(throttled).toMatchObject({ level: 20, cap: 40, pausedMs: 100 });
    for (const event of run.concurrency) {
      expect(event.level).toBeGreaterThanOrEqual(1);
      expect(event.level).toBeLessThanOrEqual(40);
    }
  });

  test('never more than maxConcurrency in flight', async () => {
    const run = await fanOut({ calls: 30, maxInFlight: 100, maxConcurrency: 5 });
    expect(run.output).toBe('30');
    expect(run.peakInFlight).toBeLessThanOrEqual(5);
    expect(run.refused).toBe(0);
    expect(run.concurrency).toEqual([]);
  });
});
