import { ModelCallError } from '@rlm/core';
import { createScriptedModel } from '@rlm/core/testing';
import { describe, expect, test } from 'vitest';
import { findContextWindow } from './context-windows.js';
import { directBaselineSystem, runDirectBaseline } from './run-direct-baseline.js';

const price = {
  inputPerMillionUsd: 3,
  outputPerMillionUsd: 15,
  cacheReadPerMillionUsd: 0.3,
  cacheWritePerMillionUsd: 3.75,
};

describe('runDirectBaseline', () => {
  test('a context that fits goes whole into one prompt; the answer, tokens and cost come back', async () => {
    const model = createScriptedModel([{ text: ' 42 \n', inputTokens: 1_000, outputTokens: 2 }]);
    const run = await runDirectBaseline('What is the code?', 'the code is 42', {
      model,
      windowTokens: 10_000,
      price,
    });
    expect(run).toMatchObject({
      kind: 'answered',
      answer: '42',
      steps: 1,
      subCalls: 0,
      usage: { inputTokens: 1_000, outputTokens: 2, modelCalls: 1, costUsd: 0.00303 },
    });
    const request = model.requests[0]!;
    expect(request.system).toBe(directBaselineSystem);
    expect(request.messages[0]!.content).toBe(
      '<context>\nthe code is 42\n</context>\n\nQuestion: What is the code?',
    );
  });

  test('a context larger than the window is not sent: did not fit', async () => {
    const model = createScriptedModel([]);
    const run = await runDirectBaseline('Q?', 'x'.repeat(40_000), {
      model,
      windowTokens: 12_000,
    });
    expect(run.kind).toBe('did-not-fit');
    expect(run).toMatchObject({ windowTokens: 12_000 });
    expect((run as { estimatedTokens: number }).estimatedTokens).toBeGreaterThan(10_000);
    expect(model.requests).toHaveLength(0);
  });

  test('an API that refuses the prompt as too long is did-not-fit; other errors fail the run', async () => {
    const tooLong = createScriptedModel([
      {
        error: new ModelCallError('prompt is too long: 210000 tokens > 200000 maximum', {
          reason: 'invalid-request',
          status: 400,
        }),
      },
    ]);
    expect(
      (await runDirectBaseline('Q?', 'ctx', { model: tooLong, windowTokens: 200_000 })).kind,
    ).toBe('did-not-fit');
    const down = createScriptedModel([
      { error: new ModelCallError('overloaded after 3 attempts', { reason: 'server' }) },
    ]);
    const failed = await runDirectBaseline('Q?', 'ctx', { model: down, windowTokens: 200_000 });
    expect(failed).toMatchObject({
      kind: 'failed',
      error: { name: 'ModelCallError', message: 'overloaded after 3 attempts' },
    });
  });
});

describe('findContextWindow', () => {
  test('matches whole ids, provider prefixes and dated snapshots; unknown is undefined', () => {
    expect(findContextWindow('claude-sonnet-4-5')).toBe(200_000);
    expect(findContextWindow('anthropic:claude-sonnet-4-5-20250929')).toBe(200_000);
    expect(findContextWindow('openai:gpt-4.1-mini')).toBe(1_047_576);
    expect(findContextWindow('qwen3:8b')).toBeUndefined();
    expect(findContextWindow('qwen3:8b', { 'qwen3:8b': 32_768 })).toBe(32_768);
  });
});
