import {
  APICallError,
  type LanguageModelV2CallOptions,
  type LanguageModelV2StreamPart,
  UnsupportedFunctionalityError,
} from '@ai-sdk/provider';
import { type GenerateRequest, ModelCallError, type ModelRetry } from '@rlm/core';
import { MockLanguageModelV2 } from 'ai/test';
import { describe, expect, test } from 'vitest';
import { createAISDKModel } from './ai-sdk-model.js';

const ask: GenerateRequest = { system: 'Be brief.', messages: [{ role: 'user', content: 'Hi?' }] };
const submit = {
  name: 'SUBMIT',
  description: 'Submit the final answer',
  inputSchema: { type: 'object', properties: { answer: { type: 'string' } } },
};
const usage = { inputTokens: 10, outputTokens: 2, totalTokens: 12 };

function textResult(text: string) {
  return {
    content: [{ type: 'text' as const, text }],
    finishReason: 'stop' as const,
    usage,
    warnings: [],
  };
}

async function rejection(promise: Promise<unknown>): Promise<ModelCallError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(ModelCallError.isInstance(error)).toBe(true);
  return error as ModelCallError;
}

describe('createAISDKModel with the AI SDK mock model', () => {
  test('sends the prompt in spec v2 shape: system, tool calls, a tool message, then text', async () => {
    const mock = new MockLanguageModelV2({ doGenerate: textResult('done') });
    const model = createAISDKModel(mock, { stream: false });
    await model.generate({
      system: 'Sys.',
      messages: [
        { role: 'user', content: 'Go.' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Two calls.' },
            { type: 'tool-call', call: { id: 'c1', name: 'SUBMIT', input: { answer: 'a' } } },
            { type: 'tool-call', call: { id: 'c2', name: 'SUBMIT', input: undefined } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool-result', toolCallId: 'c1', content: 'ok' },
            { type: 'text', text: 'Finish.' },
          ],
        },
      ],
      tools: [submit],
      toolChoice: { tool: 'SUBMIT' },
      maxTokens: 99,
    });
    const call = mock.doGenerateCalls[0] as LanguageModelV2CallOptions;
    expect(call.prompt).toEqual([
      { role: 'system', content: 'Sys.' },
      { role: 'user', content: [{ type: 'text', text: 'Go.' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Two calls.' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'SUBMIT', input: { answer: 'a' } },
          { type: 'tool-call', toolCallId: 'c2', toolName: 'SUBMIT', input: {} },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'SUBMIT',
            output: { type: 'text', value: 'ok' },
          },
          {
            type: 'tool-result',
            toolCallId: 'c2',
            toolName: 'SUBMIT',
            output: { type: 'error-text', value: 'No result was recorded for this tool call.' },
          },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'Finish.' }] },
    ]);
    expect(call.tools).toEqual([
      {
        type: 'function',
        name: 'SUBMIT',
        description: 'Submit the final answer',
        inputSchema: submit.inputSchema,
      },
    ]);
    expect(call.toolChoice).toEqual({ type: 'tool', toolName: 'SUBMIT' });
    expect(call.maxOutputTokens).toBe(99);
    expect(call.abortSignal).toBeInstanceOf(AbortSignal);
  });

  test('withModel wraps another model of the provider given, with the same settings', async () => {
    const made: string[] = [];
    const provider = (modelId: string) => {
      made.push(modelId);
      return new MockLanguageModelV2({ modelId, doGenerate: textResult(`from ${modelId}`) });
    };
    const model = createAISDKModel(provider('big'), { stream: false, provider });
    const small = model.withModel?.('small');
    expect(small?.modelId).toBe('mock-provider:small');
    expect((await small!.generate(ask)).text).toBe('from small');
    expect(made).toEqual(['big', 'small']);
    const fixed = createAISDKModel(new MockLanguageModelV2({ doGenerate: textResult('x') }));
    expect(fixed.withModel).toBeUndefined();
  });

  test('reads text, tool calls (skipping provider-executed ones) and an undecodable input', async () => {
    const model = createAISDKModel(
      new MockLanguageModelV2({
        provider: 'google.generative-ai',
        modelId: 'gemini-2.5-pro',
        doGenerate: {
          content: [
            { type: 'reasoning', text: 'hmm' },
            { type: 'text', text: 'Submitting.' },
            { type: 'tool-call', toolCallId: 't1', toolName: 'SUBMIT', input: '{"answer":"42"}' },
            { type: 'tool-call', toolCallId: 't2', toolName: 'SUBMIT', input: '{"ans' },
            {
              type: 'tool-call',
              toolCallId: 't3',
              toolName: 'web_search',
              input: '{}',
              providerExecuted: true,
            },
          ],
          finishReason: 'tool-calls',
          usage: { ...usage, inputTokens: 100, cachedInputTokens: 30 },
          warnings: [],
        },
      }),
      { stream: false },
    );
    expect(model.modelId).toBe('google.generative-ai:gemini-2.5-pro');
    const result = await model.generate({ ...ask, tools: [submit] });
    expect(result.text).toBe('Submitting.');
    expect(result.stopReason).toBe('tool-call');
    expect(result.toolCalls.map((call) => call.id)).toEqual(['t1', 't2']);
    expect(result.toolCalls[0]?.input).toEqual({ answer: '42' });
    expect(result.toolCalls[1]?.inputError).toMatch(/not JSON/);
    expect(result.usage).toEqual({ inputTokens: 70, outputTokens: 2, cacheReadTokens: 30 });
  });

  test("Anthropic's counts already leave cache reads out of the input", async () => {
    const model = createAISDKModel(
      new MockLanguageModelV2({
        provider: 'anthropic.messages',
        doGenerate: {
          ...textResult('x'),
          usage: { ...usage, inputTokens: 100, cachedInputTokens: 30 },
        },
      }),
      { stream: false },
    );
    expect((await model.generate(ask)).usage).toEqual({
      inputTokens: 100,
      outputTokens: 2,
      cacheReadTokens: 30,
    });
  });

  test('a provider without tool support is tools-unsupported, not retried', async () => {
    let calls = 0;
    const model = createAISDKModel(
      new MockLanguageModelV2({
        doGenerate: async () => {
          calls += 1;
          throw new UnsupportedFunctionalityError({ functionality: 'tools' });
        },
      }),
      { stream: false },
    );
    const error = await rejection(model.generate({ ...ask, tools: [submit] }));
    expect(error.reason).toBe('tools-unsupported');
    expect(calls).toBe(1);
  });

  test('a retryable APICallError is retried after its retry-after; the key never shows', async () => {
    const secret = 'sk-mock-provider-SECRET-0123456789';
    const rateLimited = new APICallError({
      message: `Rate limited for key ${secret}`,
      url: 'https://example.invalid/v1',
      requestBodyValues: {},
      statusCode: 429,
      responseHeaders: { 'retry-after': '0.02' },
      isRetryable: true,
    });
    const attempts: unknown[] = [rateLimited, textResult('after')];
    const model = createAISDKModel(
      new MockLanguageModelV2({
        doGenerate: async () => {
          const next = attempts.shift();
          if (next instanceof Error) throw next;
          return next as ReturnType<typeof textResult>;
        },
      }),
      { secrets: [secret], stream: false },
    );
    const retries: ModelRetry[] = [];
    const result = await model.generate(ask, { onRetry: (retry) => retries.push(retry) });
    expect(result.text).toBe('after');
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ reason: 'rate-limited', status: 429, delayMs: 20 });
    expect(retries[0]?.detail).not.toContain(secret);
  });

  test('a provider that ignores the signal still rejects with the abort reason at once', async () => {
    const model = createAISDKModel(
      new MockLanguageModelV2({ doGenerate: () => new Promise(() => {}) }),
      { stream: false },
    );
    const controller = new AbortController();
    const reason = new Error('user stop');
    setTimeout(() => controller.abort(reason), 50);
    await expect(model.generate(ask, { signal: controller.signal })).rejects.toBe(reason);
  });

  test('an attempt past timeoutMs is a timeout naming the settings', async () => {
    const model = createAISDKModel(
      new MockLanguageModelV2({ doGenerate: () => new Promise(() => {}) }),
      { timeoutMs: 100, maxRetries: 0, stream: false },
    );
    const error = await rejection(model.generate(ask));
    expect(error.reason).toBe('timeout');
    expect(error.settings).toEqual(['timeoutMs', 'maxRetries']);
  });

  test('streamed, timeoutMs bounds silences: parts that keep coming are never cut', async () => {
    const deltas = Array.from({ length: 30 }, (_, index) => `piece ${index}. `);
    const mock = new MockLanguageModelV2({
      doStream: async () => ({
        stream: new ReadableStream<LanguageModelV2StreamPart>({
          async start(controller) {
            controller.enqueue({ type: 'stream-start', warnings: [] });
            controller.enqueue({ type: 'text-start', id: 't' });
            for (const delta of deltas) {
              await new Promise((resolve) => setTimeout(resolve, 50));
              controller.enqueue({ type: 'text-delta', id: 't', delta });
            }
            controller.enqueue({ type: 'text-end', id: 't' });
            controller.enqueue({ type: 'finish', finishReason: 'stop', usage });
            controller.close();
          },
        }),
      }),
    });
    const model = createAISDKModel(mock, { timeoutMs: 1_000, maxRetries: 0 });
    const started = Date.now();
    expect((await model.generate(ask)).text).toBe(deltas.join(''));
    // 30 parts 50 ms apart: longer than timeoutMs in all.
    expect(Date.now() - started).toBeGreaterThan(1_000);
  });

  test('streamed, an answer that goes silent past timeoutMs fails saying so', async () => {
    const mock = new MockLanguageModelV2({
      doStream: async () => ({
        stream: new ReadableStream<LanguageModelV2StreamPart>({
          start(controller) {
            controller.enqueue({ type: 'stream-start', warnings: [] });
            controller.enqueue({ type: 'text-start', id: 't' });
            controller.enqueue({ type: 'text-delta', id: 't', delta: 'then nothing' });
          },
        }),
      }),
    });
    const model = createAISDKModel(mock, { timeoutMs: 200, maxRetries: 0 });
    const error = await rejection(model.generate(ask));
    expect(error).toMatchObject({ reason: 'timeout', settings: ['timeoutMs', 'maxRetries'] });
    expect(error.message).toMatch(
      /went silent for 200 ms mid-answer, after 3 stream parts; gave up after 1 attempt .+\. Raise timeoutMs or maxRetries/,
    );
  });

  test('streams by default: text deltas reach onText, tool calls and usage are read', async () => {
    const parts: LanguageModelV2StreamPart[] = [
      { type: 'stream-start', warnings: [] },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'Stream' },
      { type: 'text-delta', id: 't', delta: 'ed.' },
      { type: 'text-end', id: 't' },
      { type: 'tool-call', toolCallId: 'k1', toolName: 'SUBMIT', input: '{"answer":"s"}' },
      {
        type: 'finish',
        finishReason: 'tool-calls',
        usage: { inputTokens: 50, outputTokens: 5, totalTokens: 55, cachedInputTokens: 20 },
      },
    ];
    const model = createAISDKModel(
      new MockLanguageModelV2({
        doStream: async () => ({
          stream: new ReadableStream({
            start(controller) {
              for (const part of parts) controller.enqueue(part);
              controller.close();
            },
          }),
        }),
      }),
    );
    const pieces: string[] = [];
    const result = await model.generate(
      { ...ask, tools: [submit] },
      { onText: (delta) => pieces.push(delta) },
    );
    expect(pieces).toEqual(['Stream', 'ed.']);
    expect(result).toEqual({
      text: 'Streamed.',
      toolCalls: [{ id: 'k1', name: 'SUBMIT', input: { answer: 's' } }],
      stopReason: 'tool-call',
      usage: { inputTokens: 30, outputTokens: 5, cacheReadTokens: 20 },
    });
  });

  test('a stream that ends before its finish part is cut short: retried, then one clear error', async () => {
    let attempts = 0;
    const model = createAISDKModel(
      new MockLanguageModelV2({
        doStream: async () => {
          attempts += 1;
          return {
            stream: new ReadableStream<LanguageModelV2StreamPart>({
              start(controller) {
                controller.enqueue({ type: 'text-delta', id: 't', delta: 'half an ans' });
                controller.close();
              },
            }),
          };
        },
      }),
      { maxRetries: 1 },
    );
    const error = await rejection(model.generate(ask));
    expect(attempts).toBe(2);
    expect(error.reason).toBe('network');
    expect(error.message).toMatch(/stopped mid-answer \(the stream ended before its finish part\)/);
  });

  test('an error part in the stream fails the attempt like a thrown error', async () => {
    const model = createAISDKModel(
      new MockLanguageModelV2({
        doStream: async () => ({
          stream: new ReadableStream<LanguageModelV2StreamPart>({
            start(controller) {
              controller.enqueue({ type: 'text-delta', id: 't', delta: 'half' });
              controller.enqueue({
                type: 'error',
                error: new UnsupportedFunctionalityError({ functionality: 'tool calling' }),
              });
              controller.close();
            },
          }),
        }),
      }),
    );
    expect((await rejection(model.generate(ask))).reason).toBe('tools-unsupported');
  });

  test('refuses a model of another specification version', () => {
    const v3 = { ...new MockLanguageModelV2(), specificationVersion: 'v3' };
    expect(() => createAISDKModel(v3 as unknown as MockLanguageModelV2)).toThrow(
      /specification "v3", not v2/,
    );
  });
});
