import { afterEach, describe, expect, test } from 'vitest';
import { fakeChatError, fakeChatText, fakeChatToolCall } from './fake-chat-replies.js';
import {
  type FakeChatCompletionsServer,
  type FakeChatCompletionsServerOptions,
  startFakeChatCompletionsServer,
} from './fake-chat-completions-server.js';

let server: FakeChatCompletionsServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(options: FakeChatCompletionsServerOptions = {}) {
  server = await startFakeChatCompletionsServer(options);
  return server;
}

/** The fields of a JSON answer the tests read: a completion's, or an error's. */
interface Answer {
  readonly error: { readonly type: string; readonly message: string };
  readonly choices: readonly [
    {
      readonly message: { readonly [key: string]: unknown };
      readonly finish_reason: string;
    },
  ];
  readonly usage: { readonly [key: string]: unknown };
}

async function post(body: unknown, key: string | null = 'sk-test') {
  const response = await fetch(`${server!.url}/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(key === null ? {} : { authorization: `Bearer ${key}` }),
    },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Answer };
}

const user = { role: 'user', content: 'Hi' };
const submitTool = {
  type: 'function',
  function: { name: 'SUBMIT', parameters: { type: 'object', properties: {} } },
};
const callingAssistant = {
  role: 'assistant',
  content: null,
  tool_calls: [
    { id: 'call_1', type: 'function', function: { name: 'SUBMIT', arguments: '{}' } },
    { id: 'call_2', type: 'function', function: { name: 'SUBMIT', arguments: '{}' } },
  ],
};

describe('startFakeChatCompletionsServer', () => {
  test('answers a valid request with the scripted completion, usage with cached tokens', async () => {
    await start({
      replies: [
        fakeChatText('hello', {
          usage: { promptTokens: 50, completionTokens: 2, cachedTokens: 20 },
        }),
      ],
    });
    const { status, json } = await post({ model: 'gpt-4.1', messages: [user] });
    expect(status).toBe(200);
    expect(json.choices[0].message).toMatchObject({ role: 'assistant', content: 'hello' });
    expect(json.choices[0].finish_reason).toBe('stop');
    expect(json.usage).toMatchObject({
      prompt_tokens: 50,
      completion_tokens: 2,
      prompt_tokens_details: { cached_tokens: 20 },
    });
  });

  test('sends tool calls with string arguments and finish reason tool_calls', async () => {
    await start({ replies: [fakeChatToolCall('SUBMIT', { answer: 1 }, { id: 'call_x' })] });
    const { json } = await post({ model: 'm', messages: [user], tools: [submitTool] });
    expect(json.choices[0].finish_reason).toBe('tool_calls');
    expect(json.choices[0].message.tool_calls).toEqual([
      { id: 'call_x', type: 'function', function: { name: 'SUBMIT', arguments: '{"answer":1}' } },
    ]);
  });

  test.each([
    [
      'a tool message with no preceding tool_calls',
      [user, { role: 'tool', tool_call_id: 'call_1', content: 'x' }],
      /must be a response to a preceding message with 'tool_calls'/,
    ],
    [
      'tool_calls not answered for every id',
      [user, callingAssistant, { role: 'tool', tool_call_id: 'call_1', content: 'x' }, user],
      /did not have response messages: call_2/,
    ],
    [
      'tool_calls left unanswered at the end',
      [user, callingAssistant],
      /did not have response messages: call_1, call_2/,
    ],
    [
      'a tool message after a user message',
      [
        user,
        callingAssistant,
        { role: 'tool', tool_call_id: 'call_1', content: 'x' },
        { role: 'tool', tool_call_id: 'call_2', content: 'x' },
        user,
        { role: 'tool', tool_call_id: 'call_2', content: 'again' },
      ],
      /must be a response to a preceding message/,
    ],
    [
      'an empty assistant message',
      [user, { role: 'assistant', content: '' }, user],
      /must have content or tool_calls/,
    ],
    ['an empty user message', [{ role: 'user', content: '' }], /non-empty string/],
  ])('rejects %s with 400', async (_name, messages, pattern) => {
    await start({ replies: [fakeChatText('never')] });
    const { status, json } = await post({ model: 'm', messages, tools: [submitTool] });
    expect(status).toBe(400);
    expect(json.error.type).toBe('invalid_request_error');
    expect(json.error.message).toMatch(pattern);
    expect(server!.pendingReplies).toBe(1);
  });

  test.each([
    ['a bad function name', { type: 'function', function: { name: 'no spaces' } }, /pattern/],
    ['a 65-character name', { type: 'function', function: { name: 'a'.repeat(65) } }, /pattern/],
    [
      'a non-object schema',
      { type: 'function', function: { name: 'f', parameters: { type: 'string' } } },
      /type: "object"/,
    ],
  ])('rejects %s', async (_name, tool, pattern) => {
    await start();
    const { status, json } = await post({ model: 'm', messages: [user], tools: [tool] });
    expect(status).toBe(400);
    expect(json.error.message).toMatch(pattern);
  });

  test('rejects tool_choice without tools, or naming an unknown function', async () => {
    await start();
    expect((await post({ model: 'm', messages: [user], tool_choice: 'auto' })).status).toBe(400);
    const unknown = await post({
      model: 'm',
      messages: [user],
      tools: [submitTool],
      tool_choice: { type: 'function', function: { name: 'OTHER' } },
    });
    expect(unknown.json.error.message).toMatch(/no function named "OTHER"/);
  });

  test('streams server-sent events when asked: pieces, tool call deltas, usage, [DONE]', async () => {
    await start({
      replies: [
        fakeChatToolCall(
          'SUBMIT',
          { answer: 'x'.repeat(40) },
          { id: 'call_z', text: 'Streaming a reply.' },
        ),
      ],
    });
    const response = await fetch(`${server!.url}/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'm',
        messages: [user],
        tools: [submitTool],
        stream: true,
        stream_options: { include_usage: true },
      }),
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = (await response.text()).trim().split('\n\n');
    expect(events.at(-1)).toBe('data: [DONE]');
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event.slice('data: '.length)));
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe('Streaming a reply.');
    const argumentsText = chunks
      .flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? [])
      .map((call: { function: { arguments?: string } }) => call.function.arguments ?? '')
      .join('');
    expect(JSON.parse(argumentsText)).toEqual({ answer: 'x'.repeat(40) });
    expect(chunks.at(-2).choices[0].finish_reason).toBe('tool_calls');
    expect(chunks.at(-1).choices).toEqual([]);
    expect(chunks.at(-1).usage.prompt_tokens).toBeGreaterThan(0);
  });

  test('rejects stream_options without stream', async () => {
    await start();
    const { status, json } = await post({
      model: 'm',
      messages: [user],
      stream_options: { include_usage: true },
    });
    expect(status).toBe(400);
    expect(json.error.message).toMatch(/only allowed when 'stream' is enabled/);
  });

  test('wants a key unless configured keyless, and checks a configured one', async () => {
    await start({ replies: [fakeChatText('a')] });
    expect((await post({ model: 'm', messages: [user] }, null)).status).toBe(401);
    await server!.close();
    await start({ apiKey: null, replies: [fakeChatText('a')] });
    expect((await post({ model: 'm', messages: [user] }, null)).status).toBe(200);
    await server!.close();
    await start({ apiKey: 'right-key', replies: [fakeChatText('a')] });
    expect((await post({ model: 'm', messages: [user] }, 'wrong-key')).status).toBe(401);
    expect((await post({ model: 'm', messages: [user] }, 'right-key')).status).toBe(200);
  });

  test('refuses tools as a model without tool support does', async () => {
    await start({ toolsUnsupported: true, replies: [fakeChatText('plain')] });
    const refused = await post({ model: 'tiny', messages: [user], tools: [submitTool] });
    expect(refused.status).toBe(400);
    expect(refused.json.error.message).toBe('tiny does not support tools');
    expect((await post({ model: 'tiny', messages: [user] })).status).toBe(200);
  });

  test('serves scripted errors with their headers, then says when the script ran out', async () => {
    await start({ replies: [fakeChatError(429, { retryAfterSeconds: 2 })] });
    const response = await fetch(`${server!.url}/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [user] }),
    });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('2');
    const { status, json } = await post({ model: 'm', messages: [user] });
    expect(status).toBe(500);
    expect(json.error.message).toMatch(/ran out of replies at request 2/);
  });

  test('keepRequests: only the latest requests are kept, and they are still counted', async () => {
    await start({ replies: [fakeChatText('a'), fakeChatText('b')], keepRequests: 1 });
    await post({ model: 'm', messages: [{ role: 'user', content: 'first' }] });
    await post({ model: 'm', messages: [{ role: 'user', content: 'second' }] });
    expect(server!.requests).toHaveLength(1);
    expect(JSON.stringify(server!.requests[0]!.body)).toContain('second');
    const { json } = await post({ model: 'm', messages: [user] });
    expect(json.error.message).toMatch(/ran out of replies at request 3/);
    await expect(startFakeChatCompletionsServer({ keepRequests: 0 })).rejects.toThrow(
      /keepRequests must be at least 1/,
    );
  });
});
