import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { inspect } from 'node:util';
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, test, vi } from 'vitest';
import {
  defaultModelPrices,
  findModelPrice,
  type GenerateRequest,
  type Message,
  ModelCallError,
  type ModelRetry,
} from '@rlm/core';
import { measureSlowdown, timeScaled } from '@rlm/core/testing';
import {
  type FakeMessagesServer,
  startFakeMessagesServer,
} from './testing/fake-messages-server.js';
import {
  type FakeReply,
  fakeDelay,
  fakeDroppedConnection,
  fakeError,
  fakeHang,
  fakeMessage,
  fakeRaw,
  fakeText,
  fakeToolUse,
  fakeTruncatedToolUse,
} from './testing/fake-messages-server-replies.js';
import {
  type AnthropicModelSettings,
  createAnthropicModel,
  defaultAnthropicMaxRetries,
  defaultAnthropicMaxRetryAfterMs,
  defaultAnthropicMaxTokens,
  defaultAnthropicTimeoutMs,
} from './anthropic-model.js';
import { defaultAnthropicModelId } from './default-anthropic-model-id.js';

const apiKey = 'sk-ant-test-SECRET-do-not-leak-0123456789';
const ask: GenerateRequest = { system: 'Be brief.', messages: [{ role: 'user', content: 'Hi?' }] };
const submit = {
  name: 'SUBMIT',
  description: 'Submit the final answer',
  inputSchema: { type: 'object', properties: { answer: { type: 'string' } } },
};
/** Makes the SDK retry a fault at once instead of after its 0.5 s+ backoff. */
const retryNow = { 'retry-after-ms': '10' };

let server: FakeMessagesServer | undefined;

afterEach(async () => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  await server?.close();
  server = undefined;
});

async function setup(replies: FakeReply[], settings: AnthropicModelSettings = {}) {
  server = await startFakeMessagesServer({ replies });
  const model = createAnthropicModel({ apiKey, baseURL: server.url, maxRetries: 2, ...settings });
  return { server, model };
}

function bodyOf(index: number) {
  // biome-ignore lint/suspicious/noExplicitAny: assertions read the recorded JSON
  return server!.requests[index]!.body as any;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.unreachable('the call should have failed'),
    (error: unknown) => error,
  );
}

/** Every string reachable from an error: message, stack, own properties, the cause chain. */
function everythingIn(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 10; depth++) {
    parts.push(inspect(current, { depth: 10, showHidden: true }));
    if (current instanceof Error) parts.push(current.message, current.stack ?? '');
    if (typeof current === 'object') {
      parts.push(JSON.stringify(current), ...Object.values(current).map((value) => String(value)));
    }
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.join('\n');
}

describe('createAnthropicModel', () => {
  test('text round trip: request body, headers, result and usage', async () => {
    const { model } = await setup(
      [fakeText('Hello there.', { usage: { inputTokens: 12, outputTokens: 3 } })],
      { promptCaching: false },
    );
    expect(model.modelId).toBe(`anthropic:${defaultAnthropicModelId}`);
    expect(model.supportsTools).toBe(true);
    const result = await model.generate(ask);
    expect(result).toEqual({
      text: 'Hello there.',
      toolCalls: [],
      stopReason: 'end',
      usage: { inputTokens: 12, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });
    expect(bodyOf(0)).toEqual({
      model: defaultAnthropicModelId,
      max_tokens: defaultAnthropicMaxTokens,
      system: 'Be brief.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi?' }] }],
      stream: true,
    });
    expect(server!.requests[0]!.apiKey).toBe(apiKey);
  });

  test('settings: model id and maxTokens; a request maxTokens wins', async () => {
    const { model } = await setup([fakeText('a'), fakeText('b')], {
      model: 'claude-haiku-4-5',
      maxTokens: 321,
    });
    expect(model.modelId).toBe('anthropic:claude-haiku-4-5');
    await model.generate(ask);
    await model.generate({ ...ask, maxTokens: 50 });
    expect(bodyOf(0)).toMatchObject({ model: 'claude-haiku-4-5', max_tokens: 321 });
    expect(bodyOf(1).max_tokens).toBe(50);
  });

  test('withModel: the same client settings and key, another model id', async () => {
    const { model } = await setup([fakeText('a'), fakeText('b')], { maxTokens: 321 });
    const haiku = model.withModel?.('claude-haiku-4-5');
    expect(haiku?.modelId).toBe('anthropic:claude-haiku-4-5');
    await haiku?.generate(ask);
    await model.generate(ask);
    expect(bodyOf(0)).toMatchObject({ model: 'claude-haiku-4-5', max_tokens: 321 });
    expect(bodyOf(1)).toMatchObject({ model: defaultAnthropicModelId });
    expect(server!.requests[0]!.apiKey).toBe(apiKey);
  });

  test('reads ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL from the environment', async () => {
    server = await startFakeMessagesServer({ replies: [fakeText('from env')] });
    vi.stubEnv('ANTHROPIC_API_KEY', 'env-key');
    vi.stubEnv('ANTHROPIC_BASE_URL', server.url);
    const result = await createAnthropicModel().generate(ask);
    expect(result.text).toBe('from env');
    expect(server.requests[0]!.apiKey).toBe('env-key');
  });

  test('without an API key, creation throws one line saying to set ANTHROPIC_API_KEY', () => {
    vi.stubEnv('ANTHROPIC_API_KEY', '');
    const error = (() => {
      try {
        createAnthropicModel();
      } catch (caught) {
        return caught;
      }
    })();
    expect(ModelCallError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/set ANTHROPIC_API_KEY/);
    expect((error as Error).message).not.toContain('\n');
  });

  test('an injected client is used as is', async () => {
    server = await startFakeMessagesServer({ replies: [fakeText('injected')] });
    vi.stubEnv('ANTHROPIC_API_KEY', '');
    const client = new Anthropic({ apiKey: 'client-key', baseURL: server.url });
    const result = await createAnthropicModel({ client }).generate(ask);
    expect(result.text).toBe('injected');
    expect(server.requests[0]!.apiKey).toBe('client-key');
  });

  test('tricky histories pass the API rules: no blank text, alternation, paired tool results', async () => {
    const history: Message[] = [
      { role: 'assistant', content: 'I speak first' },
      { role: 'user', content: '  ' },
      { role: 'user', content: [{ type: 'text', text: 'question' }] },
      { role: 'assistant', content: '' },
      { role: 'assistant', content: [{ type: 'text', text: '\n' }] },
      { role: 'user', content: 'still there?' },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', call: { id: 'toolu_a', name: 'SUBMIT', input: {} } }],
      },
      { role: 'user', content: 'no result recorded for that call' },
      {
        role: 'user',
        content: [{ type: 'tool-result', toolCallId: 'toolu_zz', content: 'orphan' }],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
      { role: 'assistant', content: 'done' },
      { role: 'user', content: [{ type: 'text', text: 'final' }] },
    ];
    const { model } = await setup([fakeText('fine')], { promptCaching: false });
    const result = await model.generate({ system: ' ', messages: history, tools: [submit] });
    expect(result.text).toBe('fine');
    expect(server!.requests[0]!.status).toBe(200);
    const sent: { role: string; content: { type: string; text?: string }[] }[] = bodyOf(0).messages;
    expect(sent.map((message) => message.role)).toEqual([
      'user', // placeholder: the API wants a user message first
      'assistant',
      'user',
      'assistant', // the two empty turns, merged: a placeholder
      'user',
      'assistant',
      'user', // a synthesized error result, the text, the orphan result as text
      'assistant',
      'user',
    ]);
    const texts = sent.flatMap((message) => message.content.flatMap((block) => block.text ?? []));
    expect(texts.every((text) => text.trim() !== '')).toBe(true);
    expect(sent[6]!.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'toolu_a',
        is_error: true,
        content: 'No result was recorded for this tool call.',
      },
      { type: 'text', text: 'no result recorded for that call' },
      { type: 'text', text: 'Tool result for call toolu_zz: orphan' },
    ]);
    expect(bodyOf(0)).not.toHaveProperty('system');
  });

  test('tools: definitions, forced tool choice, the call, and the paired result', async () => {
    const { model } = await setup(
      [
        fakeToolUse('SUBMIT', { answer: '42' }, { id: 'toolu_1', text: 'Submitting.' }),
        fakeText('Thanks.'),
      ],
      { promptCaching: false },
    );
    const first = await model.generate({ ...ask, tools: [submit], toolChoice: { tool: 'SUBMIT' } });
    expect(bodyOf(0).tools).toEqual([
      { name: 'SUBMIT', description: submit.description, input_schema: submit.inputSchema },
    ]);
    expect(bodyOf(0).tool_choice).toEqual({ type: 'tool', name: 'SUBMIT' });
    expect(first).toMatchObject({
      text: 'Submitting.',
      stopReason: 'tool-call',
      toolCalls: [{ id: 'toolu_1', name: 'SUBMIT', input: { answer: '42' } }],
    });
    expect(first.toolCalls[0]).not.toHaveProperty('inputError');

    const second = await model.generate({
      ...ask,
      tools: [submit],
      toolChoice: 'none',
      messages: [
        ...ask.messages,
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Submitting.' },
            { type: 'tool-call', call: first.toolCalls[0]! },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Recorded.' },
            { type: 'tool-result', toolCallId: 'toolu_1', content: 'accepted' },
          ],
        },
      ],
    });
    expect(second.text).toBe('Thanks.');
    expect(bodyOf(1).tool_choice).toEqual({ type: 'none' });
    expect(bodyOf(1).messages[2].content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_1', content: 'accepted' },
      { type: 'text', text: 'Recorded.' },
    ]);
  });

  test('auto tool choice is sent as {type: auto}', async () => {
    const { model } = await setup([fakeText('no tool needed')]);
    await model.generate({ ...ask, tools: [submit], toolChoice: 'auto' });
    expect(bodyOf(0).tool_choice).toEqual({ type: 'auto' });
  });

  test('a tool call cut off by max_tokens has no input and an inputError', async () => {
    const { model } = await setup([
      fakeMessage(
        [
          { type: 'tool_use', id: 'toolu_done', name: 'SUBMIT', input: { answer: 'complete' } },
          { type: 'tool_use', id: 'toolu_cut', name: 'SUBMIT', input: { answ: 'par' } },
        ],
        { stopReason: 'max_tokens' },
      ),
      fakeTruncatedToolUse('SUBMIT'),
    ]);
    const result = await model.generate({ ...ask, tools: [submit] });
    expect(result.stopReason).toBe('max-tokens');
    expect(result.toolCalls[0]).toEqual({
      id: 'toolu_done',
      name: 'SUBMIT',
      input: { answer: 'complete' },
    });
    expect(result.toolCalls[1]).toMatchObject({ id: 'toolu_cut', input: undefined });
    expect(result.toolCalls[1]!.inputError).toMatch(/max_tokens.*raise maxTokens/);
    const single = await model.generate({ ...ask, tools: [submit] });
    expect(single.toolCalls[0]!.input).toBeUndefined();
  });

  test('a tool input that is not a JSON object has no input and an inputError', async () => {
    const { model } = await setup([fakeToolUse('SUBMIT', ['not', 'an', 'object'])]);
    const result = await model.generate({ ...ask, tools: [submit] });
    expect(result.toolCalls[0]).toMatchObject({ input: undefined, name: 'SUBMIT' });
    expect(result.toolCalls[0]!.inputError).toMatch(/an array, not a JSON object/);
  });

  test('stop reasons map to ours', async () => {
    const { model } = await setup([
      fakeText('a', { stopReason: 'stop_sequence' }),
      fakeText('b', { stopReason: 'max_tokens' }),
      fakeText('c', { stopReason: 'refusal' }),
      fakeText('d', { stopReason: 'pause_turn' }),
    ]);
    const reasons = [];
    for (let index = 0; index < 4; index++) reasons.push((await model.generate(ask)).stopReason);
    expect(reasons).toEqual(['stop-sequence', 'max-tokens', 'other', 'other']);
  });

  test('a 429 is retried after the retry-after the API asked for', async () => {
    const { model } = await setup([
      fakeError(429, { retryAfterSeconds: 1 }),
      fakeText('after the wait'),
    ]);
    const started = Date.now();
    const result = await model.generate(ask);
    expect(result.text).toBe('after the wait');
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(server!.requests.map((request) => request.status)).toEqual([429, 200]);
  });

  test('500, 529 and a dropped connection are retried until one succeeds', async () => {
    const { model } = await setup(
      [
        fakeDroppedConnection(),
        fakeError(500, { headers: retryNow }),
        fakeError(529, { headers: retryNow }),
        fakeText('made it'),
      ],
      { maxRetries: 3 },
    );
    const result = await model.generate(ask);
    expect(result.text).toBe('made it');
    expect(server!.requests.map((request) => request.status)).toEqual([undefined, 500, 529, 200]);
  });

  test('a transient fault that outlasts the retries is a retryable ModelCallError', async () => {
    const overloaded = () => fakeError(529, { message: 'Overloaded', headers: retryNow });
    const { model } = await setup([overloaded(), overloaded(), overloaded()]);
    const error = await rejection(model.generate(ask));
    expect(ModelCallError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 529, retryable: true });
    expect((error as Error).message).toMatch(
      /^@rlm\/anthropic: the Messages API answered 529 overloaded_error: Overloaded; gave up after 3 attempts over \d+ ms\. .*raise maxRetries\. \(request-id req_fake_3\)$/,
    );
    expect(server!.requests).toHaveLength(3);
  });

  test('a 400 is not retried and says what the API said', async () => {
    const { model } = await setup([fakeText('never')]);
    const error = await rejection(model.generate({ ...ask, maxTokens: 0 }));
    expect(error).toBeInstanceOf(ModelCallError);
    expect(error).toMatchObject({ status: 400, retryable: false });
    expect((error as Error).message).toMatch(
      /answered 400 invalid_request_error: max_tokens: Input should be greater than or equal to 1\. Check the model id and maxTokens/,
    );
    expect((error as Error).message).not.toContain('\n');
    expect(server!.requests).toHaveLength(1);
  });

  test('a 401 names ANTHROPIC_API_KEY, is not retried, and the key appears nowhere', async () => {
    server = await startFakeMessagesServer({
      apiKey: 'the-right-key',
      replies: [fakeText('never')],
    });
    const model = createAnthropicModel({ apiKey, baseURL: server.url, maxRetries: 2 });
    const error = await rejection(model.generate(ask));
    expect(error).toMatchObject({ name: 'ModelCallError', status: 401, retryable: false });
    expect((error as Error).message).toMatch(
      /answered 401 authentication_error: invalid x-api-key\. Check ANTHROPIC_API_KEY/,
    );
    expect((error as Error).cause).toBeUndefined();
    expect(everythingIn(error)).not.toContain(apiKey);
    expect(server.requests).toHaveLength(1);
  });

  test('a key echoed back by the API is scrubbed from the message', async () => {
    const { model } = await setup([fakeError(403, { message: `key ${apiKey} may not do this` })]);
    const error = await rejection(model.generate(ask));
    expect((error as Error).message).toContain('key [redacted] may not do this');
    expect(everythingIn(error)).not.toContain(apiKey);
  });

  test('an unreachable server is a retryable ModelCallError naming the URL', async () => {
    const closed = await startFakeMessagesServer();
    await closed.close();
    const model = createAnthropicModel({ apiKey, baseURL: closed.url, maxRetries: 0 });
    const error = await rejection(model.generate(ask));
    expect(error).toMatchObject({
      name: 'ModelCallError',
      status: undefined,
      retryable: true,
      settings: ['maxRetries', 'baseURL'],
    });
    expect((error as Error).message).toContain(`could not reach the Messages API at ${closed.url}`);
    expect(everythingIn(error)).not.toContain(apiKey);
  });

  test('a response slower than timeoutMs is retried, then a typed error', async () => {
    const { model } = await setup(
      [fakeDelay(30_000, fakeText('too late')), fakeDelay(30_000, fakeText('too late'))],
      { timeoutMs: 200, maxRetries: 1 },
    );
    const { value: error, scaledMs } = await timeScaled(() => rejection(model.generate(ask)));
    // Far below the replies' 30 s, scaled by the machine's load.
    expect(scaledMs).toBeLessThan(15_000);
    expect(error).toMatchObject({ name: 'ModelCallError', retryable: true, status: undefined });
    expect((error as Error).message).toMatch(
      /did not answer within timeoutMs \(200 ms\); gave up after 2 attempts over [\d.,]+ m?s\. Raise timeoutMs or maxRetries/,
    );
    expect(server!.requests).toHaveLength(2);
  });

  test('a timed-out attempt is retried and a prompt answer wins', async () => {
    // A limit a loaded machine's prompt answer keeps to; the late one waits far past it.
    const { model } = await setup([fakeDelay(30_000, fakeText('too late')), fakeText('in time')], {
      timeoutMs: 1_000,
    });
    expect((await model.generate(ask)).text).toBe('in time');
  });

  test('aborting rejects promptly with the signal reason and is not retried', async () => {
    const { model } = await setup([fakeDelay(60_000, fakeText('never'))]);
    const controller = new AbortController();
    const pending = rejection(model.generate(ask, { signal: controller.signal }));
    // Aborted while the server holds the request (not before it was sent).
    await vi.waitFor(() => expect(server!.requests).toHaveLength(1), { timeout: 30_000 });
    const { value: error, scaledMs } = await timeScaled(() => {
      controller.abort();
      return pending;
    });
    // Far below the reply's 60 s, scaled by the machine's load.
    expect(scaledMs).toBeLessThan(15_000);
    expect(error).toBe(controller.signal.reason);
    expect((error as Error).name).toBe('AbortError');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server!.requests).toHaveLength(1);
  });

  test('aborting during a retry wait rejects promptly; an aborted signal sends nothing', async () => {
    const { model } = await setup([fakeError(429, { retryAfterSeconds: 30 })]);
    const controller = new AbortController();
    const reason = new Error('stop now');
    let abortedAt = 0;
    // Aborted once the retry is announced, that is at the start of its 30 s wait.
    const onRetry = () => {
      abortedAt = Date.now();
      controller.abort(reason);
    };
    expect(await rejection(model.generate(ask, { signal: controller.signal, onRetry }))).toBe(
      reason,
    );
    // Far sooner than the wait, scaled by the machine's load.
    expect(Date.now() - abortedAt).toBeLessThan(10_000 * measureSlowdown());
    expect(await rejection(model.generate(ask, { signal: controller.signal }))).toBe(reason);
    expect(server!.requests).toHaveLength(1);
  });

  test('defaults fail within a few minutes: 60 s an attempt, 2 retries, waits up to 60 s', () => {
    expect(defaultAnthropicTimeoutMs).toBe(60_000);
    expect(defaultAnthropicMaxRetries).toBe(2);
    expect(defaultAnthropicMaxRetryAfterMs).toBe(60_000);
  });

  test('each retry is announced with its attempt, wait and reason before the wait', async () => {
    const { model } = await setup([
      fakeError(429, { headers: retryNow }),
      fakeError(529),
      fakeText('third time'),
    ]);
    const retries: (ModelRetry & { at: number })[] = [];
    const started = Date.now();
    const result = await model.generate(ask, {
      onRetry: (retry) => retries.push({ ...retry, at: Date.now() - started }),
    });
    expect(result.text).toBe('third time');
    expect(retries).toMatchObject([
      {
        attempt: 2,
        maxAttempts: 3,
        delayMs: 10,
        requestedByApi: true,
        reason: 'rate-limited',
        status: 429,
        detail: 'answered 429 rate_limit_error',
      },
      {
        attempt: 3,
        maxAttempts: 3,
        delayMs: 1_000,
        requestedByApi: false,
        reason: 'server',
        status: 529,
        detail: 'answered 529 overloaded_error',
      },
    ]);
    expect(server!.requests.map((request) => request.status)).toEqual([429, 529, 200]);
  });

  test('a retry-after above maxRetryAfterMs fails at once, saying how long the API asked', async () => {
    const { model } = await setup([fakeError(429, { retryAfterSeconds: 3600 }), fakeText('no')], {
      maxRetryAfterMs: 5_000,
    });
    const retries: ModelRetry[] = [];
    const { value: error, scaledMs } = await timeScaled(() =>
      rejection(model.generate(ask, { onRetry: (retry) => retries.push(retry) })),
    );
    expect(scaledMs).toBeLessThan(3_000);
    expect(error).toMatchObject({
      status: 429,
      reason: 'rate-limited',
      settings: ['maxRetryAfterMs'],
    });
    expect((error as Error).message).toMatch(
      /answered 429 rate_limit_error: .*asked to wait 60 min before a retry, longer than maxRetryAfterMs \(5,000 ms\) allows\. Try again later or raise maxRetryAfterMs\./,
    );
    expect(retries).toEqual([]);
    expect(server!.requests).toHaveLength(1);
  });

  test('a hung API: every attempt ends at timeoutMs and the message gives the real time', async () => {
    const { model } = await setup([fakeHang(), fakeHang(), fakeHang()], {
      timeoutMs: 300,
      maxRetries: 2,
    });
    const retries: ModelRetry[] = [];
    const {
      value: error,
      wallMs: elapsed,
      slowdown,
    } = await timeScaled(() =>
      rejection(model.generate(ask, { onRetry: (retry) => retries.push(retry) })),
    );
    // 3 x 300 ms + 0.5 s + 1 s of backoff; the upper bound scaled by the machine's load.
    expect(elapsed).toBeGreaterThanOrEqual(2_300);
    expect(elapsed).toBeLessThan(10_000 * slowdown);
    expect(error).toMatchObject({
      reason: 'timeout',
      retryable: true,
      settings: ['timeoutMs', 'maxRetries'],
    });
    const message = (error as Error).message;
    expect(message).toMatch(
      /did not answer within timeoutMs \(300 ms\); gave up after 3 attempts over \d+(\.\d)? s\./,
    );
    const seconds = Number(/over ([\d.]+) s/.exec(message)![1]);
    expect(Math.abs(seconds * 1000 - elapsed)).toBeLessThan(1_000 * slowdown);
    expect(retries.map((retry) => [retry.attempt, retry.reason, retry.detail])).toEqual([
      [2, 'timeout', 'did not answer within 300 ms'],
      [3, 'timeout', 'did not answer within 300 ms'],
    ]);
    expect(server!.requests).toHaveLength(3);
  });

  test('timeoutMs covers the body: headers at once and a late body is a timeout', async () => {
    const { model } = await setup(
      [fakeText('late body', { bodyDelayMs: 30_000 }), fakeText('prompt')],
      { timeoutMs: 1_000 },
    );
    const retries: ModelRetry[] = [];
    const result = await model.generate(ask, { onRetry: (retry) => retries.push(retry) });
    expect(result.text).toBe('prompt');
    expect(retries).toMatchObject([{ attempt: 2, reason: 'timeout' }]);
    expect(server!.requests.map((request) => request.status)).toEqual([200, 200]);
  });

  test('a slow answer inside timeoutMs is not retried', async () => {
    const { model } = await setup([fakeText('slow but fine', { bodyDelayMs: 300 })], {
      timeoutMs: 5_000,
    });
    const retries: ModelRetry[] = [];
    expect((await model.generate(ask, { onRetry: (retry) => retries.push(retry) })).text).toBe(
      'slow but fine',
    );
    expect(retries).toEqual([]);
  });

  test('unstreamed: a 200 with HTML, a JSON string or a cut body is retried like a 5xx', async () => {
    const { model } = await setup(
      [
        fakeRaw('text/html; charset=utf-8', '<html><body><h1>502 Bad Gateway</h1></body></html>'),
        fakeRaw('application/json', '"upstream busy"'),
        fakeText('x'.repeat(2_000), { cutAfterBytes: 64 }),
        fakeText('finally'),
      ],
      { maxRetries: 3, stream: false },
    );
    const retries: ModelRetry[] = [];
    const result = await model.generate(ask, { onRetry: (retry) => retries.push(retry) });
    expect(result.text).toBe('finally');
    expect(retries.map((retry) => [retry.reason, retry.status])).toEqual([
      ['server', 200],
      ['server', 200],
      ['server', 200],
    ]);
    expect(retries[0]!.detail).toContain('content-type text/html; charset=utf-8, not JSON');
    expect(retries[1]!.detail).toContain('the JSON is a string, not a message');
    expect(retries[2]!.detail).toMatch(/cut after 64 of \d+ bytes/);
  });

  test('bad bodies that outlast the retries: one line with status, content type, first bytes', async () => {
    const page = '<html>\n<body>\n<h1>Sorry, the proxy is down</h1></body></html>';
    const { model } = await setup(
      [fakeRaw('text/html', page), fakeRaw('text/html', page), fakeRaw('text/html', page)],
      { maxRetries: 2 },
    );
    const error = await rejection(model.generate(ask));
    expect(error).toMatchObject({ status: 200, reason: 'server', retryable: true });
    const message = (error as Error).message;
    expect(message).not.toContain('\n');
    expect(message).toMatch(
      /^@rlm\/anthropic: the Messages API answered 200 \(content-type text\/html\) with a body that is not a message: content-type text\/html, not JSON; it starts "<html> <body> <h1>Sorry, the proxy is down.*"; gave up after 3 attempts over [\d.]+ s\. .*raise maxRetries\.$/,
    );
  });

  test('unstreamed: a body cut mid-way with no retries left says how much arrived', async () => {
    const { model } = await setup([fakeText('y'.repeat(1_000), { cutAfterBytes: 30 })], {
      maxRetries: 0,
      stream: false,
    });
    const error = await rejection(model.generate(ask));
    expect((error as Error).message).toMatch(
      /answered 200 \(content-type application\/json\) with a body that is not a message: cut after 30 of \d+ bytes.*; it starts "\{\\"id\\":\\"msg_fake_1/,
    );
  });

  test('x-should-retry: false stops a 5xx from being retried', async () => {
    const { model } = await setup([
      fakeError(500, { headers: { 'x-should-retry': 'false' } }),
      fakeText('never'),
    ]);
    const error = await rejection(model.generate(ask));
    expect(error).toMatchObject({ status: 500 });
    expect(server!.requests).toHaveLength(1);
  });

  test('settings out of range are refused when the model is created', () => {
    expect(() => createAnthropicModel({ apiKey, maxRetries: -1 })).toThrow(
      /maxRetries must be a whole number of at least 0 \(got -1\)/,
    );
    expect(() => createAnthropicModel({ apiKey, timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(() => createAnthropicModel({ apiKey, maxRetryAfterMs: 1.5 })).toThrow(/maxRetryAfterMs/);
  });

  test('a toolChoice naming no offered tool fails before any request', async () => {
    const { model } = await setup([]);
    const error = await rejection(model.generate({ ...ask, toolChoice: { tool: 'SUBMIT' } }));
    expect(error).toBeInstanceOf(ModelCallError);
    expect((error as Error).message).toMatch(/toolChoice names the tool 'SUBMIT'/);
    expect(server!.requests).toHaveLength(0);
  });
});

describe('defaultAnthropicModelId', () => {
  const sdkRoot = dirname(createRequire(import.meta.url).resolve('@anthropic-ai/sdk'));

  test('has a price in the built-in table, so runs report their cost', () => {
    expect(findModelPrice(defaultModelPrices, defaultAnthropicModelId)).toBeDefined();
  });

  test('is a model the installed SDK lists and does not mark deprecated', () => {
    const modelList = readFileSync(join(sdkRoot, 'resources/messages/messages.d.ts'), 'utf8');
    const union = modelList.slice(modelList.indexOf('export type Model ='));
    expect(union.slice(0, union.indexOf(';'))).toContain(`'${defaultAnthropicModelId}'`);
    const { DEPRECATED_MODELS } = createRequire(import.meta.url)(
      join(sdkRoot, 'internal/data/deprecated-models.js'),
    ) as { DEPRECATED_MODELS: Record<string, string> };
    expect(Object.keys(DEPRECATED_MODELS).length).toBeGreaterThan(0);
    expect(DEPRECATED_MODELS).not.toHaveProperty(defaultAnthropicModelId);
  });

  test('draws no deprecation warning from messages.create, unlike a deprecated model', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { model } = await setup([fakeText('current'), fakeText('old')]);
    await model.generate(ask);
    expect(warn).not.toHaveBeenCalled();
    await createAnthropicModel({
      apiKey,
      baseURL: server!.url,
      model: 'claude-sonnet-4-5',
    }).generate(ask);
    expect(String(warn.mock.calls[0]?.[0])).toMatch(/'claude-sonnet-4-5' is deprecated/);
  });
});

describe('prompt caching', () => {
  const long = (label: string) => `${label}: ${'lorem ipsum dolor sit amet '.repeat(200)}`;

  test('each step reads the earlier steps from the cache; usage splits input, reads and writes', async () => {
    const { model } = await setup([fakeText('one'), fakeText('two'), fakeText('three')]);
    const messages: Message[] = [{ role: 'user', content: long('the question') }];
    const first = await model.generate({ system: long('system'), messages, tools: [submit] });
    expect(first.usage.cacheReadTokens).toBe(0);
    expect(first.usage.cacheWriteTokens).toBeGreaterThan(2_000);
    const body = bodyOf(0);
    expect(body.tools.at(-1).cache_control).toEqual({ type: 'ephemeral' });
    expect(body.system).toEqual([
      { type: 'text', text: long('system'), cache_control: { type: 'ephemeral' } },
    ]);
    expect(body.messages[0].content.at(-1).cache_control).toEqual({ type: 'ephemeral' });

    messages.push({ role: 'assistant', content: 'one' }, { role: 'user', content: long('output') });
    const second = await model.generate({ system: long('system'), messages, tools: [submit] });
    // Everything the first request wrote is read; only the new step is written.
    expect(second.usage.cacheReadTokens).toBe(first.usage.cacheWriteTokens);
    expect(second.usage.cacheWriteTokens).toBeGreaterThan(0);
    expect(second.usage.cacheWriteTokens).toBeLessThan(first.usage.cacheWriteTokens!);

    messages.push({ role: 'assistant', content: 'two' }, { role: 'user', content: long('more') });
    await model.generate({ system: long('system'), messages, tools: [submit] });
    const third = bodyOf(2);
    const marked = [
      ...third.tools,
      ...third.system,
      ...third.messages.flatMap((message: { content: object[] }) => message.content),
    ].filter((block: { cache_control?: unknown }) => block.cache_control !== undefined);
    expect(marked).toHaveLength(4);
    expect(third.messages[0].content.at(-1).cache_control).toBeUndefined();
  });

  test('a singleUse request (one llm_query) writes nothing to the cache', async () => {
    const { model } = await setup([fakeText('a')]);
    const result = await model.generate({
      system: long('system'),
      messages: [{ role: 'user', content: long('q') }],
      singleUse: true,
    });
    expect(JSON.stringify(bodyOf(0))).not.toContain('cache_control');
    expect(result.usage).toMatchObject({ cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  test('promptCaching: false sends no cache_control and reads nothing', async () => {
    const { model } = await setup([fakeText('a'), fakeText('b')], { promptCaching: false });
    const request = {
      system: long('system'),
      messages: [{ role: 'user' as const, content: long('q') }],
    };
    await model.generate(request);
    const second = await model.generate(request);
    expect(JSON.stringify(bodyOf(0))).not.toContain('cache_control');
    expect(second.usage).toMatchObject({ cacheReadTokens: 0, cacheWriteTokens: 0 });
    expect(second.usage.inputTokens).toBeGreaterThan(2_000);
  });
});
