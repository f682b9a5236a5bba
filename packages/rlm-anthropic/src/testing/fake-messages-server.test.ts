import { afterEach, describe, expect, test } from 'vitest';
import { timeScaled } from '@rlm/core/testing';
import { type FakeMessagesServer, startFakeMessagesServer } from './fake-messages-server.js';
import {
  fakeDelay,
  fakeDroppedConnection,
  fakeError,
  fakeHang,
  fakeRaw,
  fakeText,
  fakeToolUse,
  fakeTruncatedToolUse,
} from './fake-messages-server-replies.js';

const headers = {
  'content-type': 'application/json',
  'x-api-key': 'test-key',
  'anthropic-version': '2023-06-01',
};

const base = {
  model: 'claude-test',
  max_tokens: 64,
  messages: [{ role: 'user', content: 'hi' }],
};

const weather = {
  name: 'get_weather',
  description: 'Weather for a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } } },
};

/** A valid conversation in which the assistant called `get_weather` once (id `toolu_1`). */
function withToolCall(userContent: unknown, extra: object = {}) {
  return {
    ...base,
    tools: [weather],
    messages: [
      { role: 'user', content: 'weather?' },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'x' } }],
      },
      { role: 'user', content: userContent },
    ],
    ...extra,
  };
}

let server: FakeMessagesServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(...replies: Parameters<FakeMessagesServer['enqueue']>) {
  server = await startFakeMessagesServer({ replies });
  return server;
}

async function post(body: unknown, requestHeaders: Record<string, string> = headers) {
  const response = await fetch(`${server!.url}/v1/messages`, {
    method: 'POST',
    headers: requestHeaders,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return {
    status: response.status,
    headers: response.headers,
    // biome-ignore lint/suspicious/noExplicitAny: assertions read arbitrary JSON
    json: (await response.json()) as any,
  };
}

describe('startFakeMessagesServer', () => {
  test('answers a scripted message with API-shaped defaults and records the request', async () => {
    await start(fakeText('hello'));
    const { status, json, headers: responseHeaders } = await post(base);
    expect(status).toBe(200);
    expect(responseHeaders.get('request-id')).toBe('req_fake_1');
    expect(json).toMatchObject({
      id: 'msg_fake_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-test',
      content: [{ type: 'text', text: 'hello' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
    });
    expect(json.usage.input_tokens).toBeGreaterThan(0);
    expect(json.usage.output_tokens).toBeGreaterThan(0);
    expect(server!.requests).toHaveLength(1);
    expect(server!.requests[0]).toMatchObject({
      method: 'POST',
      path: '/v1/messages',
      body: base,
      status: 200,
      error: undefined,
    });
    expect(server!.requests[0]!.headers['x-api-key']).toBe('test-key');
    expect(server!.requests[0]!.apiKey).toBe('test-key');
    expect(server!.pendingReplies).toBe(0);
  });

  test('fakeToolUse fills an id and stop_reason tool_use; usage can be scripted', async () => {
    await start(
      fakeToolUse('get_weather', { city: 'Paris' }, { text: 'Let me check.' }),
      fakeToolUse(
        'get_weather',
        {},
        { id: 'toolu_custom', usage: { inputTokens: 7, outputTokens: 3 } },
      ),
      fakeTruncatedToolUse('get_weather', { ci: 'Par' }),
    );
    const first = (await post({ ...base, tools: [weather] })).json;
    expect(first.stop_reason).toBe('tool_use');
    expect(first.content).toEqual([
      { type: 'text', text: 'Let me check.', citations: null },
      { type: 'tool_use', id: 'toolu_fake_1', name: 'get_weather', input: { city: 'Paris' } },
    ]);
    const second = (await post({ ...base, tools: [weather] })).json;
    expect(second.content[0].id).toBe('toolu_custom');
    expect(second.usage).toMatchObject({ input_tokens: 7, output_tokens: 3 });
    const third = (await post({ ...base, tools: [weather] })).json;
    expect(third.stop_reason).toBe('max_tokens');
    expect(third.content.at(-1)).toMatchObject({ type: 'tool_use', input: { ci: 'Par' } });
  });

  test('a handler answers once the queue is used up, and sees the request', async () => {
    server = await startFakeMessagesServer({
      replies: [fakeText('from the queue')],
      handler: (request) => fakeText(`echo ${request.messages.length}`),
    });
    expect((await post(base)).json.content[0].text).toBe('from the queue');
    expect((await post(base)).json.content[0].text).toBe('echo 1');
    server.enqueue(fakeText('enqueued'));
    expect((await post(base)).json.content[0].text).toBe('enqueued');
  });

  test('an exhausted script answers 500 saying so, and the request is recorded', async () => {
    await start();
    const { status, json } = await post(base);
    expect(status).toBe(500);
    expect(json).toMatchObject({ type: 'error', error: { type: 'api_error' } });
    expect(json.error.message).toMatch(/script ran out of replies at request 1/);
    expect(server!.requests[0]!.error?.message).toMatch(/script ran out/);
  });

  test('a handler that throws answers 500 with its message', async () => {
    server = await startFakeMessagesServer({
      handler: () => {
        throw new Error('boom');
      },
    });
    const { status, json } = await post(base);
    expect(status).toBe(500);
    expect(json.error.message).toMatch(/the handler threw: boom/);
  });

  test('scripted faults: error status with retry-after, delay, dropped connection', async () => {
    await start(
      fakeError(429, { retryAfterSeconds: 2 }),
      fakeError(529, { message: 'Overloaded' }),
      fakeDelay(150, fakeText('late')),
      fakeDroppedConnection(),
    );
    const limited = await post(base);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(limited.json).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    const overloaded = await post(base);
    expect(overloaded.status).toBe(529);
    expect(overloaded.json.error).toEqual({ type: 'overloaded_error', message: 'Overloaded' });
    const started = Date.now();
    expect((await post(base)).json.content[0].text).toBe('late');
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    await expect(post(base)).rejects.toThrow();
    expect(server!.requests[3]).toMatchObject({ status: undefined, reply: { kind: 'drop' } });
  });

  test("bodies that are not the API's JSON: HTML, a JSON string, a cut body", async () => {
    await start(
      fakeRaw('text/html; charset=utf-8', '<html><body>Bad gateway</body></html>'),
      fakeRaw('application/json', '"upstream busy"'),
      fakeText('x'.repeat(500), { cutAfterBytes: 40 }),
    );
    const html = await fetch(`${server!.url}/v1/messages`, {
      method: 'POST',
      headers,
      body: JSON.stringify(base),
    });
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await html.text()).toContain('Bad gateway');
    const page = await fetch(`${server!.url}/v1/messages`, {
      method: 'POST',
      headers,
      body: JSON.stringify(base),
    });
    expect(page.headers.get('content-type')).toBe('application/json');
    expect(await page.json()).toBe('upstream busy');
    const cut = await fetch(`${server!.url}/v1/messages`, {
      method: 'POST',
      headers,
      body: JSON.stringify(base),
    });
    expect(cut.status).toBe(200);
    expect(Number(cut.headers.get('content-length'))).toBeGreaterThan(500);
    await expect(cut.text()).rejects.toThrow();
    expect(server!.requests.map((request) => request.reply?.kind)).toEqual([
      'raw',
      'raw',
      'message',
    ]);
  });

  test('a hung request stays open until the client leaves; a slow body comes late', async () => {
    await start(fakeHang(), fakeText('slow', { bodyDelayMs: 150 }));
    const hung = fetch(`${server!.url}/v1/messages`, {
      method: 'POST',
      headers,
      body: JSON.stringify(base),
      signal: AbortSignal.timeout(300),
    });
    await expect(hung).rejects.toThrow();
    expect(server!.requests[0]!.status).toBeUndefined();
    const started = Date.now();
    const slow = await fetch(`${server!.url}/v1/messages`, {
      method: 'POST',
      headers,
      body: JSON.stringify(base),
    });
    expect(slow.status).toBe(200);
    expect(((await slow.json()) as { content: { text: string }[] }).content[0]!.text).toBe('slow');
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  test('fakeError defaults the type from the status', () => {
    expect(fakeError(500).errorType).toBe('api_error');
    expect(fakeError(401).errorType).toBe('authentication_error');
    expect(fakeError(418).errorType).toBe('api_error');
  });

  test('authentication: a key from x-api-key or a Bearer token; missing or wrong is a 401', async () => {
    server = await startFakeMessagesServer({ apiKey: 'right', replies: [fakeText('ok')] });
    const { 'x-api-key': _, ...withoutKey } = headers;
    const missing = await post(base, withoutKey);
    expect(missing.status).toBe(401);
    expect(missing.json.error.type).toBe('authentication_error');
    const wrong = await post(base, { ...headers, 'x-api-key': 'wrong' });
    expect(wrong.status).toBe(401);
    expect((await post(base, { ...headers, 'x-api-key': 'right' })).status).toBe(200);
    server.enqueue(fakeText('ok'));
    const bearer = await post(base, { ...withoutKey, authorization: 'Bearer right' });
    expect(bearer.status).toBe(200);
    expect(server.requests.at(-1)!.apiKey).toBe('right');
  });

  test('other paths are a 404', async () => {
    await start();
    const response = await fetch(`${server!.url}/v1/models`, { headers });
    expect(response.status).toBe(404);
  });

  test('invalid requests consume no scripted reply', async () => {
    await start(fakeText('kept'));
    expect((await post({ ...base, messages: [] })).status).toBe(400);
    expect(server!.pendingReplies).toBe(1);
    expect((await post(base)).json.content[0].text).toBe('kept');
  });

  const invalid: [string, unknown, RegExp][] = [
    ['a body that is not JSON', '{"model":', /not valid JSON/],
    [
      'a stream flag that is not a boolean',
      { ...base, stream: 'yes' },
      /stream: Input should be a valid boolean/,
    ],
    ['no model', { ...base, model: undefined }, /model: Field required/],
    ['no max_tokens', { ...base, max_tokens: undefined }, /max_tokens: Field required/],
    ['max_tokens 0', { ...base, max_tokens: 0 }, /greater than or equal to 1/],
    ['fractional max_tokens', { ...base, max_tokens: 1.5 }, /valid integer/],
    ['no messages', { ...base, messages: undefined }, /messages: Field required/],
    ['empty messages', { ...base, messages: [] }, /at least one message/],
    [
      'an assistant first message',
      { ...base, messages: [{ role: 'assistant', content: 'hi' }] },
      /first message must use the "user" role/,
    ],
    [
      'a system role message',
      { ...base, messages: [{ role: 'system', content: 'hi' }] },
      /role: Input should be 'user' or 'assistant'/,
    ],
    [
      'two user messages in a row',
      {
        ...base,
        messages: [
          { role: 'user', content: 'a' },
          { role: 'user', content: 'b' },
        ],
      },
      /roles must alternate .* multiple "user" roles in a row/,
    ],
    [
      'an empty string content',
      { ...base, messages: [{ role: 'user', content: '' }] },
      /all messages must have non-empty content/,
    ],
    [
      'an empty content list',
      { ...base, messages: [{ role: 'user', content: [] }] },
      /all messages must have non-empty content/,
    ],
    [
      'whitespace-only string content',
      { ...base, messages: [{ role: 'user', content: ' \n ' }] },
      /text content blocks must contain non-whitespace text/,
    ],
    [
      'an empty text block',
      { ...base, messages: [{ role: 'user', content: [{ type: 'text', text: '' }] }] },
      /text content blocks must be non-empty/,
    ],
    [
      'a whitespace-only text block',
      { ...base, messages: [{ role: 'user', content: [{ type: 'text', text: '\t ' }] }] },
      /text content blocks must contain non-whitespace text/,
    ],
    [
      'a blank text block in the system prompt',
      { ...base, system: [{ type: 'text', text: ' ' }] },
      /system: text content blocks must contain non-whitespace text/,
    ],
    [
      'an empty middle assistant message',
      {
        ...base,
        messages: [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: '' },
          { role: 'user', content: 'b' },
        ],
      },
      /messages.1: all messages must have non-empty content/,
    ],
    [
      'a final assistant message with trailing whitespace',
      {
        ...base,
        messages: [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: 'partial ' },
        ],
      },
      /final assistant content cannot end with trailing whitespace/,
    ],
    [
      'a tool_use without a tool_result after it',
      withToolCall('what now?'),
      /messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1/,
    ],
    [
      'a tool_use as the final message',
      { ...withToolCall('x'), messages: withToolCall('x').messages.slice(0, 2) },
      /`tool_use` ids were found without `tool_result` blocks/,
    ],
    [
      'a tool_result after other content',
      withToolCall([
        { type: 'text', text: 'here' },
        { type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' },
      ]),
      /`tool_result` blocks must come first/,
    ],
    [
      'a tool_result for an unknown id',
      withToolCall([
        { type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' },
        { type: 'tool_result', tool_use_id: 'toolu_9', content: 'rain' },
      ]),
      /unexpected `tool_use_id` found in `tool_result` blocks: toolu_9/,
    ],
    [
      'a tool_result without any tool_use',
      {
        ...base,
        messages: [
          {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'x' }],
          },
        ],
      },
      /unexpected `tool_use_id`/,
    ],
    [
      'an empty error tool_result',
      withToolCall([{ type: 'tool_result', tool_use_id: 'toolu_1', is_error: true, content: '' }]),
      /content cannot be empty if `is_error` is true/,
    ],
    [
      'a blank text block inside a tool_result',
      withToolCall([
        { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: ' ' }] },
      ]),
      /non-whitespace text/,
    ],
    [
      'a tool_use whose input is not an object',
      {
        ...base,
        messages: [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'f', input: [] }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'x' }] },
        ],
      },
      /input: Input should be a valid dictionary/,
    ],
    [
      'a tool name with a space',
      { ...base, tools: [{ ...weather, name: 'get weather' }] },
      /tools.0.name: String should match pattern/,
    ],
    [
      'a tool name longer than 64 characters',
      { ...base, tools: [{ ...weather, name: 'x'.repeat(65) }] },
      /tools.0.name: String should match pattern/,
    ],
    [
      'a tool without input_schema',
      { ...base, tools: [{ name: 'f', description: 'd' }] },
      /tools.0.input_schema: Field required/,
    ],
    [
      'a tool whose schema is not an object schema',
      { ...base, tools: [{ ...weather, input_schema: { type: 'string' } }] },
      /input_schema.type: Input should be 'object'/,
    ],
    ['duplicate tool names', { ...base, tools: [weather, weather] }, /Tool names must be unique/],
    [
      'tool_choice naming a missing tool',
      { ...base, tools: [weather], tool_choice: { type: 'tool', name: 'other' } },
      /tool_choice.name: tool 'other' is not among/,
    ],
    [
      'tool_choice any without tools',
      { ...base, tool_choice: { type: 'any' } },
      /requires at least one tool/,
    ],
  ];

  test.each(invalid)('rejects %s with 400 invalid_request_error', async (_, body, message) => {
    await start(fakeText('never sent'));
    const { status, json } = await post(body);
    expect(status).toBe(400);
    expect(json.type).toBe('error');
    expect(json.error.type).toBe('invalid_request_error');
    expect(json.error.message).toMatch(message);
    expect(server!.requests[0]).toMatchObject({
      status: 400,
      error: { type: 'invalid_request_error' },
    });
  });

  test('a missing anthropic-version header is a 400', async () => {
    await start();
    const { 'anthropic-version': _, ...withoutVersion } = headers;
    const { status, json } = await post(base, withoutVersion);
    expect(status).toBe(400);
    expect(json.error.message).toMatch(/anthropic-version/);
  });

  const valid: [string, unknown][] = [
    [
      'a tool round trip with tool_choice and a trailing text block',
      withToolCall(
        [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' },
          { type: 'text', text: 'and now?' },
        ],
        { tool_choice: { type: 'tool', name: 'get_weather' }, system: 'Be brief.' },
      ),
    ],
    [
      'an empty final assistant message (prefill)',
      {
        ...base,
        messages: [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: '' },
        ],
      },
    ],
    [
      'a final assistant prefill without trailing whitespace',
      {
        ...base,
        messages: [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: [{ type: 'text', text: 'The answer is' }] },
        ],
      },
    ],
    [
      'an error tool_result with content',
      withToolCall([
        { type: 'tool_result', tool_use_id: 'toolu_1', is_error: true, content: 'failed' },
      ]),
    ],
    ['tool_choice none', { ...base, tools: [weather], tool_choice: { type: 'none' } }],
  ];

  test.each(valid)('accepts %s', async (_, body) => {
    await start(fakeText('ok'));
    const { status, json } = await post(body);
    expect(json.error).toBeUndefined();
    expect(status).toBe(200);
  });

  test('close is idempotent and drops a pending delayed reply', async () => {
    await start(fakeDelay(60_000, fakeText('never')));
    const pending = post(base).catch((error: unknown) => error);
    while (server!.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const { scaledMs } = await timeScaled(() => Promise.all([server!.close(), server!.close()]));
    // Far below the reply's 60 s, scaled by the machine's load.
    expect(scaledMs).toBeLessThan(15_000);
    expect(await pending).toBeInstanceOf(Error);
    expect(server!.requests[0]!.status).toBeUndefined();
  });
});

describe('the emulated prompt cache', () => {
  const mark = { cache_control: { type: 'ephemeral' } };
  const long = 'cached prefix '.repeat(400);

  test('more than 4 cache_control blocks is a 400 saying how many', async () => {
    await start(fakeText('never'));
    const { status, json } = await post({
      ...base,
      system: [{ type: 'text', text: 's', ...mark }],
      messages: [
        {
          role: 'user',
          content: ['a', 'b', 'c', 'd'].map((text) => ({ type: 'text', text, ...mark })),
        },
      ],
    });
    expect(status).toBe(400);
    expect(json.error).toEqual({
      type: 'invalid_request_error',
      message: 'A maximum of 4 blocks with cache_control may be provided. Found 5.',
    });
    expect(server!.pendingReplies).toBe(1);
  });

  test('the second request with the same prefix reads it; minimumTokens is an option', async () => {
    server = await startFakeMessagesServer({
      replies: [fakeText('1'), fakeText('2'), fakeText('3')],
      promptCache: { minimumTokens: 2_000 },
    });
    const request = {
      ...base,
      messages: [{ role: 'user', content: [{ type: 'text', text: long, ...mark }] }],
    };
    const first = await post(request);
    expect(first.json.usage).toMatchObject({
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    });
    server.enqueue(fakeText('4'));
    await server.close();
    server = await startFakeMessagesServer({ replies: [fakeText('1'), fakeText('2')] });
    const written = await post(request);
    const read = await post(request);
    expect(written.json.usage.cache_creation_input_tokens).toBeGreaterThan(1_024);
    expect(read.json.usage).toMatchObject({
      cache_read_input_tokens: written.json.usage.cache_creation_input_tokens,
      cache_creation_input_tokens: 0,
      input_tokens: 0,
    });
  });
});
