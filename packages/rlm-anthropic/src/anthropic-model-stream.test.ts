import { type GenerateRequest, ModelCallError, type ModelRetry } from '@rlm/core';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { type AnthropicModelSettings, createAnthropicModel } from './anthropic-model.js';
import {
  type FakeMessagesServer,
  startFakeMessagesServer,
} from './testing/fake-messages-server.js';
import {
  type FakeReply,
  fakeRaw,
  fakeText,
  fakeToolUse,
} from './testing/fake-messages-server-replies.js';

const apiKey = 'sk-ant-stream-SECRET-do-not-leak-0123456789';
const ask: GenerateRequest = { system: 'Be brief.', messages: [{ role: 'user', content: 'Hi?' }] };
/** No retry-after waits are scripted here; the backoff between attempts is 0.5 s. */
const noWait = { maxRetryAfterMs: 0 };

let server: FakeMessagesServer | undefined;

afterEach(async () => {
  vi.restoreAllMocks();
  await server?.close();
  server = undefined;
});

async function setup(replies: FakeReply[], settings: AnthropicModelSettings = {}) {
  server = await startFakeMessagesServer({ replies });
  const model = createAnthropicModel({ apiKey, baseURL: server.url, maxRetries: 2, ...settings });
  return { server, model };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.unreachable('the call should have failed'),
    (error: unknown) => error,
  );
}

describe('createAnthropicModel, streamed', () => {
  test('text arrives through onText in pieces, before the call resolves', async () => {
    const text = 'The quarterly report names three vendors: Acme, Globex and Initech.';
    const { model } = await setup([fakeText(text, { stream: { deltaChars: 4, eventDelayMs: 2 } })]);
    const seen: string[] = [];
    let resolved = false;
    const pending = model.generate(ask, {
      onText: (delta) => {
        expect(resolved).toBe(false);
        seen.push(delta);
      },
    });
    const result = await pending.finally(() => {
      resolved = true;
    });
    expect(result.text).toBe(text);
    expect(seen).toHaveLength(Math.ceil(text.length / 4));
    expect(seen.every((piece) => piece.length <= 4)).toBe(true);
    expect(seen.join('')).toBe(text);
    expect(server!.requests[0]!.body).toMatchObject({ stream: true });
  });

  test('a tool call streamed in many input_json_delta pieces is assembled whole', async () => {
    const input = {
      answer: 'Acme, Globex, Initech',
      evidence: [{ page: 3, quote: 'vendors "Acme" & Globex' }],
      confident: true,
    };
    const { model } = await setup([
      fakeToolUse('SUBMIT', input, {
        id: 'toolu_streamed',
        text: 'Submitting.',
        stream: { deltaChars: 3 },
      }),
    ]);
    const submit = {
      name: 'SUBMIT',
      description: 'Submit the final answer',
      inputSchema: { type: 'object', properties: { answer: { type: 'string' } } },
    };
    const seen: string[] = [];
    const result = await model.generate(
      { ...ask, tools: [submit] },
      { onText: (delta) => seen.push(delta) },
    );
    expect(result.toolCalls).toEqual([{ id: 'toolu_streamed', name: 'SUBMIT', input }]);
    expect(result.text).toBe('Submitting.');
    expect(result.stopReason).toBe('tool-call');
    expect(seen.join('')).toBe('Submitting.');
  });

  test('a tool call cut by max_tokens mid-input has no input and says why', async () => {
    const { model } = await setup([
      fakeToolUse('SUBMIT', { answer: 'a long answer' }, { stopReason: 'max_tokens' }),
    ]);
    const result = await model.generate(ask);
    expect(result.toolCalls[0]).toMatchObject({ name: 'SUBMIT', input: undefined });
    expect(result.toolCalls[0]!.inputError).toMatch(/reached max_tokens/);
  });

  test('usage comes from message_start and message_delta, cache reads and writes included', async () => {
    const usage = {
      inputTokens: 120,
      outputTokens: 17,
      cacheReadTokens: 900,
      cacheWriteTokens: 64,
    };
    const { model } = await setup([fakeText('counted', { usage })]);
    expect((await model.generate(ask)).usage).toEqual(usage);
  });

  test('the emulated prompt cache is written by one streamed step and read by the next', async () => {
    const long = 'context line that repeats. '.repeat(400);
    const { model } = await setup([fakeText('one'), fakeText('two')]);
    const first = await model.generate({ ...ask, system: long });
    const second = await model.generate({
      ...ask,
      system: long,
      messages: [
        { role: 'user', content: 'Hi?' },
        { role: 'assistant', content: 'one' },
        { role: 'user', content: 'And then?' },
      ],
    });
    expect(first.usage.cacheWriteTokens).toBeGreaterThan(1000);
    expect(second.usage.cacheReadTokens).toBe(first.usage.cacheWriteTokens);
  });

  test('a stream cut mid-answer is retried, the wait announced; onText may see text again', async () => {
    const { model } = await setup(
      [fakeText('a first try that breaks', { stream: { cutAfterEvents: 5 } }), fakeText('whole')],
      noWait,
    );
    const retries: ModelRetry[] = [];
    const seen: string[] = [];
    const result = await model.generate(ask, {
      onRetry: (retry) => retries.push(retry),
      onText: (delta) => seen.push(delta),
    });
    expect(result.text).toBe('whole');
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ reason: 'network', attempt: 2 });
    expect(retries[0]!.detail).toMatch(/stopped mid-answer/);
    expect(seen.join('')).toBe('a first whole');
  });

  test('a stream cut on every attempt is one line: retryable, network, naming maxRetries', async () => {
    const cut = fakeText('never whole', { stream: { cutAfterEvents: 4 } });
    const { model } = await setup([cut, cut, cut], noWait);
    const error = await rejection(model.generate(ask));
    expect(ModelCallError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ reason: 'network', retryable: true, settings: ['maxRetries'] });
    const { message } = error as Error;
    expect(message).toMatch(
      /^@rlm\/anthropic: the Messages API's streamed answer stopped before its end \(.+\); gave up after 3 attempts over .+raise maxRetries\.$/,
    );
    expect(message).not.toContain('\n');
    expect(message).not.toContain(apiKey);
    expect(server!.requests).toHaveLength(3);
  });

  test('an overloaded_error event mid-answer is retried like a 529', async () => {
    const { model } = await setup(
      [fakeText('half', { stream: { errorAfterEvents: 4 } }), fakeText('recovered')],
      noWait,
    );
    const retries: ModelRetry[] = [];
    const result = await model.generate(ask, { onRetry: (retry) => retries.push(retry) });
    expect(result.text).toBe('recovered');
    expect(retries).toMatchObject([{ reason: 'server', status: 529 }]);
  });

  test('an invalid_request_error event is not retried: a typed 400', async () => {
    const { model } = await setup([
      fakeText('x', {
        stream: { errorAfterEvents: 2, errorType: 'invalid_request_error', errorMessage: 'bad' },
      }),
    ]);
    const error = await rejection(model.generate(ask));
    expect(error).toMatchObject({ status: 400, retryable: false, reason: 'invalid-request' });
    expect((error as Error).message).toMatch(
      /^@rlm\/anthropic: the Messages API stopped its streamed answer with invalid_request_error: bad\. /,
    );
    expect(server!.requests).toHaveLength(1);
  });

  test('timeoutMs bounds silences, not the whole answer: a long stream that keeps coming ends well', async () => {
    const text = 'x'.repeat(60);
    const { model } = await setup(
      [fakeText(text, { stream: { deltaChars: 2, eventDelayMs: 50 } })],
      { timeoutMs: 1_000, maxRetries: 0 },
    );
    const started = Date.now();
    const result = await model.generate(ask);
    expect(result.text).toBe(text);
    // About 36 events 50 ms apart: longer than timeoutMs in all.
    expect(Date.now() - started).toBeGreaterThan(1_000);
  });

  test('a stream that goes silent past timeoutMs fails saying so', async () => {
    const { model } = await setup([fakeText('stalls', { stream: { hangAfterEvents: 3 } })], {
      timeoutMs: 300,
      maxRetries: 0,
    });
    const error = await rejection(model.generate(ask));
    expect(error).toMatchObject({ reason: 'timeout', retryable: true });
    expect((error as Error).message).toMatch(
      /^@rlm\/anthropic: the Messages API's streamed answer went silent for timeoutMs \(300 ms\) after 3 events; gave up after 1 attempt/,
    );
  });

  test('aborting mid-stream rejects with the signal reason and is not retried', async () => {
    const { model } = await setup([fakeText('held', { stream: { hangAfterEvents: 4 } })]);
    const controller = new AbortController();
    const reason = new Error('the user pressed Ctrl-C');
    const pending = model.generate(ask, {
      signal: controller.signal,
      onText: () => controller.abort(reason),
    });
    expect(await rejection(pending)).toBe(reason);
    expect(server!.requests).toHaveLength(1);
  });

  test('an event that is not JSON is a malformed body, retried, then reported in one line', async () => {
    const broken = fakeRaw('text/event-stream', 'event: message_start\ndata: {not json\n\n');
    const { model } = await setup([broken, broken], { ...noWait, maxRetries: 1 });
    const error = await rejection(model.generate(ask));
    expect(error).toMatchObject({ status: 200, reason: 'server', retryable: true });
    expect((error as Error).message).toMatch(
      /content-type text\/event-stream\) with a body that is not a message: event 1 \(message_start\) is not JSON; it starts "event: message_start data: \{not json/,
    );
  });

  test('a server that answers a streamed request with one JSON message is read as such', async () => {
    const message = {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'm',
      content: [{ type: 'text', text: 'one body' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 3, output_tokens: 2 },
    };
    const { model } = await setup([fakeRaw('application/json', JSON.stringify(message))]);
    const seen: string[] = [];
    const result = await model.generate(ask, { onText: (delta) => seen.push(delta) });
    expect(result.text).toBe('one body');
    expect(seen).toEqual(['one body']);
  });

  test('stream: false sends no stream flag and gives onText the whole text once', async () => {
    server = await startFakeMessagesServer({ replies: [fakeText('in one go')], streaming: false });
    const model = createAnthropicModel({ apiKey, baseURL: server.url, stream: false });
    const seen: string[] = [];
    const result = await model.generate(ask, { onText: (delta) => seen.push(delta) });
    expect(result.text).toBe('in one go');
    expect(seen).toEqual(['in one go']);
    expect(server.requests[0]!.body).not.toHaveProperty('stream');
  });
});

describe('createAnthropicModel, transport', () => {
  test('by default streams over the keep-alive fetch, never the global fetch', async () => {
    // Spied first: the SDK takes the global fetch when the client is made.
    const globalFetch = vi.spyOn(globalThis, 'fetch');
    const text = 'Streamed over a warm connection.';
    const { model } = await setup([
      fakeText(text, { stream: { deltaChars: 5 } }),
      fakeText('second', { stream: { deltaChars: 5 } }),
    ]);
    const seen: string[] = [];
    expect((await model.generate(ask, { onText: (delta) => seen.push(delta) })).text).toBe(text);
    expect(seen.length).toBeGreaterThan(1);
    expect((await model.generate(ask)).text).toBe('second');
    expect(globalFetch).not.toHaveBeenCalled();
  });

  test('a fetch of the settings wins over the default', async () => {
    const seen: string[] = [];
    const { model } = await setup([fakeText('through mine')], {
      fetch: (input, init) => {
        seen.push(String(input));
        return fetch(input, init);
      },
    });
    expect((await model.generate(ask)).text).toBe('through mine');
    expect(seen).toEqual([`${server!.url}/v1/messages`]);
  });
});
