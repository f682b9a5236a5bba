import { type GenerateRequest, ModelCallError, type ModelRetry } from '@rlm/core';
import OpenAI from 'openai';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { createOpenAIModel, keylessPlaceholder, type OpenAIModelSettings } from './openai-model.js';
import {
  type FakeChatReply,
  fakeChatError,
  fakeChatHang,
  fakeChatRaw,
  fakeChatText,
  fakeChatToolCall,
} from './testing/fake-chat-replies.js';
import {
  type FakeChatCompletionsServer,
  type FakeChatCompletionsServerOptions,
  startFakeChatCompletionsServer,
} from './testing/fake-chat-completions-server.js';

const apiKey = 'sk-proj-test-SECRET-do-not-leak-0123456789';
const ask: GenerateRequest = { system: 'Be brief.', messages: [{ role: 'user', content: 'Hi?' }] };
const submit = {
  name: 'SUBMIT',
  description: 'Submit the final answer',
  inputSchema: { type: 'object', properties: { answer: { type: 'string' } } },
};

let server: FakeChatCompletionsServer | undefined;

afterEach(async () => {
  vi.unstubAllEnvs();
  await server?.close();
  server = undefined;
});

async function setup(
  replies: FakeChatReply[],
  settings: Partial<OpenAIModelSettings> = {},
  options: FakeChatCompletionsServerOptions = {},
) {
  server = await startFakeChatCompletionsServer({ replies, ...options });
  const model = createOpenAIModel({
    model: 'gpt-4.1',
    apiKey,
    baseURL: server.url,
    maxRetries: 2,
    ...settings,
  });
  return { server, model };
}

function bodyOf(index: number): Readonly<Record<string, unknown>> {
  return server!.requests[index]!.body as Readonly<Record<string, unknown>>;
}

async function rejection(promise: Promise<unknown>): Promise<ModelCallError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(ModelCallError.isInstance(error)).toBe(true);
  return error as ModelCallError;
}

describe('createOpenAIModel: requests', () => {
  test('sends the system prompt, tools as functions and a forced function choice', async () => {
    const { model } = await setup([fakeChatToolCall('SUBMIT', { answer: 'x' })]);
    await model.generate({
      ...ask,
      tools: [submit],
      toolChoice: { tool: 'SUBMIT' },
      maxTokens: 77,
    });
    const body = bodyOf(0);
    expect(body.model).toBe('gpt-4.1');
    expect(body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi?' },
    ]);
    expect(body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'SUBMIT',
          description: 'Submit the final answer',
          parameters: submit.inputSchema,
        },
      },
    ]);
    expect(body.tool_choice).toEqual({ type: 'function', function: { name: 'SUBMIT' } });
    // A server other than the OpenAI API reads max_tokens.
    expect(body.max_tokens).toBe(77);
    expect(body.stream).toBe(true);
    expect(body.stream_options).toEqual({ include_usage: true });
  });

  test('withModel: the same server, key and settings, another model id', async () => {
    const { model } = await setup([fakeChatText('a'), fakeChatText('b')], {
      provider: 'vllm',
      maxTokens: 64,
    });
    const other = model.withModel?.('qwen3:14b');
    expect(other?.modelId).toBe('vllm:qwen3:14b');
    await other?.generate(ask);
    await model.generate(ask);
    expect(bodyOf(0)).toMatchObject({ model: 'qwen3:14b', max_tokens: 64 });
    expect(bodyOf(1)).toMatchObject({ model: 'gpt-4.1' });
    expect(server!.requests[0]!.apiKey).toBe(apiKey);
  });

  test('answers each tool call with a tool message right after it, errors marked', async () => {
    const { model } = await setup([fakeChatText('done')]);
    await model.generate({
      system: '',
      messages: [
        { role: 'user', content: 'Go.' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Calling two.' },
            { type: 'tool-call', call: { id: 'c1', name: 'SUBMIT', input: { answer: 'a' } } },
            { type: 'tool-call', call: { id: 'c2', name: 'SUBMIT', input: undefined } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool-result', toolCallId: 'c2', content: 'bad input', isError: true },
            { type: 'text', text: 'Now finish.' },
          ],
        },
      ],
      tools: [submit],
    });
    expect(bodyOf(0).messages).toEqual([
      { role: 'user', content: 'Go.' },
      {
        role: 'assistant',
        content: 'Calling two.',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'SUBMIT', arguments: '{"answer":"a"}' } },
          { id: 'c2', type: 'function', function: { name: 'SUBMIT', arguments: '{}' } },
        ],
      },
      {
        role: 'tool',
        tool_call_id: 'c1',
        content: 'Error: No result was recorded for this tool call.',
      },
      { role: 'tool', tool_call_id: 'c2', content: 'Error: bad input' },
      { role: 'user', content: 'Now finish.' },
    ]);
  });

  test('uses max_completion_tokens for the OpenAI API and sends no bound unless one is set', async () => {
    server = await startFakeChatCompletionsServer({
      replies: [fakeChatText('a'), fakeChatText('b')],
    });
    const toOpenAI = createOpenAIModel({
      model: 'gpt-5',
      apiKey,
      baseURL: server.url,
      maxTokensParameter: 'max_completion_tokens',
      maxTokens: 500,
    });
    await toOpenAI.generate(ask);
    expect(bodyOf(0).max_completion_tokens).toBe(500);
    expect(bodyOf(0).max_tokens).toBeUndefined();
    await createOpenAIModel({ model: 'gpt-5', apiKey, baseURL: server.url }).generate(ask);
    expect(bodyOf(1).max_tokens).toBeUndefined();
    expect(bodyOf(1).max_completion_tokens).toBeUndefined();
  });

  test('rejects a toolChoice naming a tool that is not offered, before any request', async () => {
    const { model, server } = await setup([]);
    const error = await rejection(model.generate({ ...ask, toolChoice: { tool: 'SUBMIT' } }));
    expect(error.message).toMatch(/toolChoice names the tool 'SUBMIT'/);
    expect(server.requests).toHaveLength(0);
  });
});

describe('createOpenAIModel: results', () => {
  test('reads tool calls, keeps undecodable arguments as an input error, and cached usage', async () => {
    const { model } = await setup([
      {
        kind: 'completion',
        content: 'Let me submit.',
        toolCalls: [
          { id: 'call_ok', name: 'SUBMIT', arguments: '{"answer":"42"}' },
          { id: 'call_cut', name: 'SUBMIT', arguments: '{"answer":"4' },
        ],
        finishReason: 'length',
        usage: { promptTokens: 1000, completionTokens: 30, cachedTokens: 600 },
      },
    ]);
    const result = await model.generate({ ...ask, tools: [submit] });
    expect(result.text).toBe('Let me submit.');
    expect(result.stopReason).toBe('max-tokens');
    expect(result.toolCalls[0]).toEqual({ id: 'call_ok', name: 'SUBMIT', input: { answer: '42' } });
    expect(result.toolCalls[1]?.input).toBeUndefined();
    expect(result.toolCalls[1]?.inputError).toMatch(/not JSON/);
    expect(result.usage).toEqual({ inputTokens: 400, outputTokens: 30, cacheReadTokens: 600 });
  });

  test('a server without usage details reports no cache reads', async () => {
    const { model } = await setup([
      fakeChatText('x', { usage: { promptTokens: 9, completionTokens: 1 } }),
    ]);
    expect((await model.generate(ask)).usage).toEqual({ inputTokens: 9, outputTokens: 1 });
  });
});

describe('createOpenAIModel: streaming', () => {
  const long = 'The needle sits on line 3217 of the context, after the filler.';

  test('text arrives in pieces through onText; tool calls and usage are assembled', async () => {
    const { model } = await setup([
      {
        kind: 'completion',
        content: long,
        toolCalls: [
          { id: 'call_s', name: 'SUBMIT', arguments: '{"answer":"a long streamed answer"}' },
        ],
        usage: { promptTokens: 500, completionTokens: 40, cachedTokens: 200 },
      },
    ]);
    const pieces: string[] = [];
    const result = await model.generate(
      { ...ask, tools: [submit] },
      { onText: (delta) => pieces.push(delta) },
    );
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join('')).toBe(long);
    expect(result.text).toBe(long);
    expect(result.toolCalls).toEqual([
      { id: 'call_s', name: 'SUBMIT', input: { answer: 'a long streamed answer' } },
    ]);
    expect(result.stopReason).toBe('tool-call');
    expect(result.usage).toEqual({ inputTokens: 300, outputTokens: 40, cacheReadTokens: 200 });
  });

  test('a stream cut mid-way is retried as a network fault and starts over', async () => {
    const { model, server } = await setup([
      { ...fakeChatText(long), streamCutAfterChunks: 2 },
      fakeChatText(long),
    ]);
    const retries: ModelRetry[] = [];
    const pieces: string[] = [];
    const result = await model.generate(ask, {
      onRetry: (retry) => retries.push(retry),
      onText: (delta) => pieces.push(delta),
    });
    expect(result.text).toBe(long);
    expect(retries.map((retry) => retry.reason)).toEqual(['network']);
    expect(server.requests).toHaveLength(2);
    // The first attempt's piece came through before the cut; the retry sends the whole text.
    expect(pieces.join('').endsWith(long)).toBe(true);
  });

  test('a stream cut on every attempt fails as a retryable network error', async () => {
    const cut = { ...fakeChatText(long), streamCutAfterChunks: 1 };
    const { model } = await setup([cut, cut], { maxRetries: 1 });
    const error = await rejection(model.generate(ask));
    expect(error.reason).toBe('network');
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(/stopped mid-answer .*gave up after 2 attempts/);
  });

  test('stream: false sends a plain request and reports the whole text once', async () => {
    const { model } = await setup([fakeChatText(long)], { stream: false });
    const pieces: string[] = [];
    const result = await model.generate(ask, { onText: (delta) => pieces.push(delta) });
    expect(pieces).toEqual([long]);
    expect(result.text).toBe(long);
    expect(bodyOf(0).stream).toBeUndefined();
  });
});

describe('createOpenAIModel: faults', () => {
  test('a refusal of tools is typed tools-unsupported, not retried', async () => {
    const { model, server } = await setup([], {}, { toolsUnsupported: true });
    const error = await rejection(model.generate({ ...ask, tools: [submit] }));
    expect(error.reason).toBe('tools-unsupported');
    expect(error.status).toBe(400);
    expect(error.retryable).toBe(false);
    expect(server.requests).toHaveLength(1);
  });

  test('a 400 about our own tool messages is not taken for a refusal of tools', async () => {
    const { model } = await setup([
      fakeChatError(400, {
        message:
          "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'.",
      }),
    ]);
    expect((await rejection(model.generate(ask))).reason).toBe('invalid-request');
  });

  test('a retry-after beyond maxRetryAfterMs fails at once, naming the setting', async () => {
    const { model, server } = await setup([fakeChatError(429, { retryAfterSeconds: 120 })], {
      maxRetryAfterMs: 1_000,
    });
    const error = await rejection(model.generate(ask));
    expect(error.reason).toBe('rate-limited');
    expect(error.settings).toEqual(['maxRetryAfterMs']);
    expect(error.message).toMatch(/asked to wait 2 min before a retry/);
    expect(server.requests).toHaveLength(1);
  });

  test('never puts the key in a message, even when the server echoes it', async () => {
    const { model } = await setup([
      fakeChatError(401, { message: `Incorrect API key provided: ${apiKey}` }),
    ]);
    const error = await rejection(model.generate(ask));
    expect(error.reason).toBe('authentication');
    expect(error.message).not.toContain(apiKey);
    expect(error.message).toContain('[redacted]');
    expect(error.message).toMatch(/OPENAI_API_KEY/);
    expect(error.cause).toBeUndefined();
  });

  test('a body that is not a completion is retried, then fails as a server fault', async () => {
    const page = '<html>Bad gateway</html>';
    const { model, server } = await setup(
      [fakeChatRaw(200, 'text/html', page), fakeChatRaw(200, 'text/html', page)],
      { maxRetries: 1 },
    );
    const retries: ModelRetry[] = [];
    const error = await rejection(model.generate(ask, { onRetry: (retry) => retries.push(retry) }));
    expect(error.reason).toBe('server');
    expect(error.message).toMatch(/not a chat completion/);
    expect(retries).toHaveLength(1);
    expect(server.requests).toHaveLength(2);
  });

  test('an attempt past timeoutMs is a timeout naming the settings', async () => {
    const { model } = await setup([fakeChatHang()], { timeoutMs: 200, maxRetries: 0 });
    const error = await rejection(model.generate(ask));
    expect(error.reason).toBe('timeout');
    expect(error.settings).toEqual(['timeoutMs', 'maxRetries']);
    expect(error.message).toMatch(/did not answer within timeoutMs \(200 ms\)/);
  });

  test('streamed, timeoutMs bounds silences: a long answer that keeps coming ends well', async () => {
    const text = 'y'.repeat(16 * 30);
    const { model } = await setup([fakeChatText(text, { streamChunkDelayMs: 50 })], {
      timeoutMs: 1_000,
      maxRetries: 0,
    });
    const started = Date.now();
    expect((await model.generate(ask)).text).toBe(text);
    // About 33 chunks 50 ms apart: longer than timeoutMs in all.
    expect(Date.now() - started).toBeGreaterThan(1_000);
  });

  test('streamed, an answer that goes silent past timeoutMs fails saying so', async () => {
    const { model } = await setup([fakeChatText('stalls', { streamHangAfterChunks: 2 })], {
      timeoutMs: 300,
      maxRetries: 0,
    });
    const error = await rejection(model.generate(ask));
    expect(error).toMatchObject({ reason: 'timeout', settings: ['timeoutMs', 'maxRetries'] });
    expect(error.message).toMatch(
      /went silent for timeoutMs \(300 ms\) mid-answer, after 2 chunks/,
    );
  });

  test('streamed, aborting mid-answer rejects with the signal reason, never a short answer', async () => {
    const { model, server } = await setup([
      fakeChatText('a'.repeat(16 * 10), { streamChunkDelayMs: 20 }),
    ]);
    const controller = new AbortController();
    const reason = new Error('the user pressed Ctrl-C');
    const outcome = await model
      .generate(ask, { signal: controller.signal, onText: () => controller.abort(reason) })
      .then(
        (result) => result,
        (error: unknown) => error,
      );
    expect(outcome).toBe(reason);
    expect(server.requests).toHaveLength(1);
  });

  test('an unreachable server is a network error naming the URL', async () => {
    const { model, server } = await setup([], { maxRetries: 0 });
    const { url } = server;
    await server.close();
    const error = await rejection(model.generate(ask));
    expect(error.reason).toBe('network');
    expect(error.message).toContain(url);
    // The URL was given: the advice names the setting, not an environment variable it did not use.
    expect(error.message).toMatch(
      /\. Check that the server is running and the baseURL setting, or raise maxRetries\.$/,
    );
    expect(error.message).not.toContain('OPENAI_BASE_URL');
    expect(error.settings).toEqual(['maxRetries', 'baseURL']);
  });

  test('an unreachable Ollama is named as such; a URL from OPENAI_BASE_URL names the variable', async () => {
    const { server } = await setup([]);
    const { url } = server;
    await server.close();
    const ollama = createOpenAIModel({
      model: 'llama3.2',
      baseURL: url,
      provider: 'ollama',
      apiKey: keylessPlaceholder,
      maxRetries: 0,
    });
    const error = await rejection(ollama.generate(ask));
    expect(error.message).toMatch(
      /Check that the ollama server is running and the baseURL setting/,
    );
    expect(error.message).not.toContain('OPENAI_BASE_URL');
    vi.stubEnv('OPENAI_BASE_URL', url);
    const fromEnvironment = createOpenAIModel({ model: 'm', apiKey, maxRetries: 0 });
    expect((await rejection(fromEnvironment.generate(ask))).message).toMatch(
      /Check that the server is running and OPENAI_BASE_URL \(or the baseURL setting\)/,
    );
  });
});

describe('createOpenAIModel: settings', () => {
  test('the OpenAI API needs a key: one line naming OPENAI_API_KEY', () => {
    vi.stubEnv('OPENAI_API_KEY', '');
    vi.stubEnv('OPENAI_BASE_URL', '');
    expect(() => createOpenAIModel({ model: 'gpt-4.1' })).toThrow(/no API key; set OPENAI_API_KEY/);
  });

  test('another server needs none: a placeholder key is sent', async () => {
    vi.stubEnv('OPENAI_API_KEY', '');
    server = await startFakeChatCompletionsServer({ apiKey: null, replies: [fakeChatText('ok')] });
    const model = createOpenAIModel({ model: 'llama3.2', baseURL: server.url });
    expect((await model.generate(ask)).text).toBe('ok');
    expect(server.requests[0]?.apiKey).toBe(keylessPlaceholder);
    expect(model.modelId).toBe('openai:llama3.2');
  });

  test('honours OPENAI_BASE_URL and OPENAI_API_KEY', async () => {
    server = await startFakeChatCompletionsServer({ apiKey, replies: [fakeChatText('env')] });
    vi.stubEnv('OPENAI_API_KEY', apiKey);
    vi.stubEnv('OPENAI_BASE_URL', server.url);
    expect((await createOpenAIModel({ model: 'gpt-4.1' }).generate(ask)).text).toBe('env');
  });

  test('rejects settings out of range', () => {
    expect(() => createOpenAIModel({ model: 'm', apiKey, maxRetries: -1 })).toThrow(
      /maxRetries must be a whole number of at least 0/,
    );
    expect(() => createOpenAIModel({ model: ' ', apiKey })).toThrow(/no model id/);
  });
});

describe('createOpenAIModel: transport', () => {
  test('by default streams over the keep-alive fetch, never the global fetch', async () => {
    // Spied first: the SDK takes the global fetch when the client is made.
    const globalFetch = vi.spyOn(globalThis, 'fetch');
    const { server: fake, model } = await setup([
      fakeChatText('first answer, in several pieces'),
      fakeChatText('second'),
    ]);
    try {
      const pieces: string[] = [];
      const first = await model.generate(ask, { onText: (delta) => pieces.push(delta) });
      expect(first.text).toBe('first answer, in several pieces');
      expect(pieces.length).toBeGreaterThan(1);
      expect((await model.generate(ask)).text).toBe('second');
      expect(globalFetch).not.toHaveBeenCalled();
      expect(fake.requests).toHaveLength(2);
    } finally {
      globalFetch.mockRestore();
    }
  });

  test('a fetch of the settings wins over the default, and a client keeps its own', async () => {
    const seen: string[] = [];
    const { model } = await setup([fakeChatText('through mine')], {
      fetch: (input, init) => {
        seen.push(String(input));
        return fetch(input, init);
      },
    });
    expect((await model.generate(ask)).text).toBe('through mine');
    expect(seen).toEqual([`${server!.url}/chat/completions`]);
    server!.enqueue(fakeChatText('through the client'));
    const viaClient: string[] = [];
    const client = new OpenAI({
      apiKey,
      baseURL: server!.url,
      fetch: (input, init) => {
        viaClient.push(String(input));
        return fetch(input, init);
      },
    });
    const clientModel = createOpenAIModel({ model: 'gpt-4.1', client, fetch: () => never() });
    expect((await clientModel.generate(ask)).text).toBe('through the client');
    expect(viaClient).toHaveLength(1);
  });
});

function never(): Promise<Response> {
  throw new Error('the fetch setting must be ignored with a client');
}
