import {
  BudgetExhaustedError,
  createRLM,
  defaultModelPrices,
  ModelPriceError,
  type RlmEvent,
  type UsageEvent,
  usageCostUsd,
} from '@rlm/core';
import { createAnthropicModel } from '@rlm/anthropic';
import { createScriptedModel } from '@rlm/core/testing';
import { fakeText, startFakeMessagesServer } from '@rlm/anthropic/testing';
import { describe, expect, test } from 'vitest';
import { sandboxFactory } from './sandbox-under-test.js';

const repl = (code: string) => `\`\`\`repl\n${code}\n\`\`\``;
const apiKey = 'sk-ant-test-key';
const tokenFields = ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens'] as const;

async function collect(stream: AsyncIterable<RlmEvent>): Promise<RlmEvent[]> {
  const events: RlmEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('cost through the real Anthropic SDK and the fake API with its prompt cache', () => {
  test('usage and cost per call of the tree: root, sub_rlm child, llm_query; they sum to the run', async () => {
    const padding = 'filler line for the cache minimum\n'.repeat(2_000);
    await using server = await startFakeMessagesServer({
      replies: [
        // root step 1
        fakeText(
          repl(
            `const part = await sub_rlm("Count the lines", context);\nconst greeting = await llm_query("Say hi");\nprint(part, greeting)`,
          ),
        ),
        // the child's three steps
        fakeText(repl('print(context.slice(0, 7000))')),
        fakeText(repl('print(context.length)')),
        fakeText('FINAL(2000 lines)'),
        // llm_query
        fakeText('hi'),
        // root step 2
        fakeText('FINAL(done: 2000 lines)'),
      ],
    });
    const llm = createAnthropicModel({ apiKey, baseURL: server.url, maxRetries: 0 });
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory, persistent: false });
    const events = await collect(rlm.queryStream('How many lines?', padding));
    const final = events.at(-1);
    expect(final).toMatchObject({ type: 'final', depth: 0, answer: 'done: 2000 lines' });
    if (final?.type !== 'final') throw new Error('no final event');
    expect(server.requests.every((request) => request.status === 200)).toBe(true);

    const callUsage = final.callUsage ?? [];
    expect(
      callUsage.map(({ callId, parentCallId, kind }) => ({ callId, parentCallId, kind })),
    ).toEqual([
      { callId: 'call-1', parentCallId: undefined, kind: 'root' },
      { callId: 'call-2', parentCallId: 'call-1', kind: 'sub_rlm' },
      { callId: expect.stringMatching(/^bridge-/), parentCallId: 'call-1', kind: 'llm_query' },
    ]);
    expect(callUsage.map((entry) => entry.usage.modelCalls)).toEqual([2, 3, 1]);
    for (const field of tokenFields) {
      const sum = callUsage.reduce((total, entry) => total + entry.usage[field], 0);
      expect(sum, field).toBe(final.usage[field]);
    }
    const costs = callUsage.map((entry) => entry.usage.costUsd ?? Number.NaN);
    expect(costs.reduce((a, b) => a + b, 0)).toBeCloseTo(final.usage.costUsd!, 12);

    // Each usage event names its model and prices it from the table.
    const usageEvents = events.filter((event): event is UsageEvent => event.type === 'usage');
    expect(usageEvents).toHaveLength(6);
    const price = defaultModelPrices['claude-sonnet-5-5']!;
    for (const event of usageEvents) {
      expect(event.modelId).toBe('anthropic:claude-sonnet-5-5');
      expect(event.costUsd).toBeCloseTo(usageCostUsd(event.usage, price), 12);
    }
    // Loop steps mark the cache; the one-shot llm_query does not (a write it would never read).
    const marked = server.requests.map((request) =>
      JSON.stringify(request.body).includes('cache_control'),
    );
    expect(marked).toEqual([true, true, true, true, false, true]);
    // A sub-RLM caches too: its third step read what its second step wrote.
    const childUsage = usageEvents.filter((event) => event.callId === 'call-2');
    expect(childUsage[1]!.usage.cacheWriteTokens).toBeGreaterThan(1_000);
    expect(childUsage[2]!.usage.cacheReadTokens).toBeGreaterThan(1_000);
  });

  test('a long run past the history budget still reads most of its input from the cache', async () => {
    const steps = 60;
    let request = 0;
    await using server = await startFakeMessagesServer({
      handler: () => {
        request += 1;
        return request >= steps
          ? fakeText('FINAL(done)')
          : fakeText(repl(`print("step ${request}: " + "observation ".repeat(90))`));
      },
    });
    const llm = createAnthropicModel({ apiKey, baseURL: server.url, maxRetries: 0 });
    await using rlm = createRLM({
      model: llm,
      sandbox: sandboxFactory,
      limits: { maxIterations: steps + 1, historyBudgetChars: 20_000 },
    });
    const { usage } = await rlm.query('Observe', 'a small context');
    expect(usage.modelCalls).toBe(steps);
    const sent = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
    // Compaction happens a few times in 60 steps; between compactions every step reads the
    // earlier ones, so most input tokens are cache reads (0.82 measured; compacting a little at
    // every step instead breaks the cached prefix each time: 0.16).
    expect(usage.cacheReadTokens / sent).toBeGreaterThan(0.6);
  });

  test('a spent maxCostUsd ends the run with the partial answer, like the other budgets', async () => {
    const model = createScriptedModel([
      { text: `About 3, I think.\n${repl('print(1)')}`, inputTokens: 1_000, outputTokens: 100 },
      'FINAL(3)',
    ]);
    await using rlm = createRLM({
      model: model,
      sandbox: sandboxFactory,
      prices: {
        scripted: {
          inputPerMillionUsd: 10,
          outputPerMillionUsd: 100,
          cacheReadPerMillionUsd: 1,
          cacheWritePerMillionUsd: 12.5,
        },
      },
      budget: { maxCostUsd: 0.01 },
    });
    const error = await rlm.query('How many?', 'a b c').catch((caught: unknown) => caught);
    expect(BudgetExhaustedError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      budget: 'cost',
      partialAnswer: expect.stringContaining('About 3'),
    });
    expect((error as Error).message).toMatch(/raise budget\.maxCostUsd/);
    expect(model.requests).toHaveLength(1);
  });

  test('maxCostUsd without a price for a model: createRLM refuses, naming the model', () => {
    expect(() =>
      createRLM({
        model: createScriptedModel(['FINAL(1)']),
        sandbox: sandboxFactory,
        budget: { maxCostUsd: 1 },
      }),
    ).toThrow(expect.objectContaining({ name: 'ModelPriceError', modelId: 'scripted' }));
    expect(ModelPriceError.isInstance(new ModelPriceError('x', { modelId: 'm' }))).toBe(true);
  });
});
