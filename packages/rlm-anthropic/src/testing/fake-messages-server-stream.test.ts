import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, test } from 'vitest';
import { type FakeMessagesServer, startFakeMessagesServer } from './fake-messages-server.js';
import { type FakeReply, fakeText, fakeToolUse } from './fake-messages-server-replies.js';
import { maxDefaultDeltas, toMessageStreamEvents } from './to-message-stream-events.js';

const ask = {
  model: 'claude-test',
  max_tokens: 64,
  messages: [{ role: 'user' as const, content: 'hi' }],
  tools: [
    {
      name: 'SUBMIT',
      input_schema: { type: 'object' as const, properties: { answer: { type: 'string' } } },
    },
  ],
};

let server: FakeMessagesServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(...replies: FakeReply[]) {
  server = await startFakeMessagesServer({ replies });
  return new Anthropic({ apiKey: 'test-key', baseURL: server.url, maxRetries: 0 });
}

/** The raw event stream of one streamed request, as `[event name, data]` pairs. */
async function rawEvents(body: object): Promise<{ status: number; events: [string, unknown][] }> {
  const response = await fetch(`${server!.url}/v1/messages`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-api-key': 'test-key',
      'anthropic-version': '2023-06-01',
    },
    body: JSON.stringify({ ...body, stream: true }),
  });
  const text = await response.text();
  if (response.status !== 200) return { status: response.status, events: [] };
  const events = text
    .split('\n\n')
    .filter((chunk) => chunk !== '')
    .map((chunk): [string, unknown] => {
      const [eventLine, dataLine] = chunk.split('\n');
      return [eventLine!.replace('event: ', ''), JSON.parse(dataLine!.replace('data: ', ''))];
    });
  return { status: response.status, events };
}

describe('the fake Messages server, streamed', () => {
  test('the SDK assembles the streamed events into the message an unstreamed request gets', async () => {
    const reply = fakeToolUse(
      'SUBMIT',
      { answer: 'forty-two, with ünïcode 🎉' },
      {
        id: 'toolu_same',
        text: 'Here it is: the answer in pieces.',
        usage: { inputTokens: 30, outputTokens: 12, cacheReadTokens: 7, cacheWriteTokens: 5 },
        stream: { deltaChars: 3 },
      },
    );
    const client = await start(reply, reply);
    const whole = await client.messages.create(ask);
    const seen: string[] = [];
    const stream = client.messages.stream(ask).on('text', (text) => seen.push(text));
    const streamed = await stream.finalMessage();
    const { content, model, role, stop_reason, stop_sequence, type, usage } = whole;
    expect(streamed).toMatchObject({
      content,
      model,
      role,
      stop_reason,
      stop_sequence,
      type,
      usage,
    });
    expect(seen.length).toBeGreaterThan(5);
    expect(seen.join('')).toBe('Here it is: the answer in pieces.');
    expect(streamed.usage).toMatchObject({
      input_tokens: 30,
      output_tokens: 12,
      cache_read_input_tokens: 7,
      cache_creation_input_tokens: 5,
    });
    expect(server!.requests[1]!.body).toMatchObject({ stream: true });
  });

  test("events come in the API's order, deltas of at most deltaChars characters", async () => {
    await start(fakeText('abcdefghij', { stream: { deltaChars: 4 } }));
    const { status, events } = await rawEvents(ask);
    expect(status).toBe(200);
    expect(events.map(([name]) => name)).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    const texts = events.flatMap(([name, data]) =>
      name === 'content_block_delta' ? [(data as { delta: { text: string } }).delta.text] : [],
    );
    expect(texts).toEqual(['abcd', 'efgh', 'ij']);
    expect(events[7]![1]).toMatchObject({ delta: { stop_reason: 'end_turn' } });
  });

  test('cutAfterEvents destroys the connection mid-answer: the SDK sees the stream fail', async () => {
    const client = await start(fakeText('never finished', { stream: { cutAfterEvents: 4 } }));
    const seen: string[] = [];
    const stream = client.messages.stream(ask).on('text', (text) => seen.push(text));
    await expect(stream.finalMessage()).rejects.toThrow();
    expect(seen).toEqual(['neve']);
  });

  test('errorAfterEvents sends an error event mid-answer, as the API does when overloaded', async () => {
    const client = await start(fakeText('half an answer', { stream: { errorAfterEvents: 4 } }));
    const failure = await client.messages
      .stream(ask)
      .finalMessage()
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Anthropic.APIError);
    expect((failure as InstanceType<typeof Anthropic.APIError>).type).toBe('overloaded_error');
    expect(server!.requests[0]!.error).toEqual({ type: 'overloaded_error', message: 'Overloaded' });
  });

  test('a server that cannot stream answers a streamed request 400 and serves unstreamed ones', async () => {
    server = await startFakeMessagesServer({ replies: [fakeText('plain')], streaming: false });
    const { status } = await rawEvents(ask);
    expect(status).toBe(400);
    expect(server.requests[0]!.error?.message).toMatch(/does not stream/);
    const client = new Anthropic({ apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    expect((await client.messages.create(ask)).content).toMatchObject([{ text: 'plain' }]);
  });
});

describe('toMessageStreamEvents', () => {
  test('without deltaChars a long text is cut into at most maxDefaultDeltas deltas', () => {
    const text = 'x'.repeat(1_000_003);
    const events = toMessageStreamEvents({
      id: 'msg_1',
      model: 'm',
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 1, output_tokens: 1 },
    });
    const deltas = events.filter(({ event }) => event === 'content_block_delta');
    expect(deltas.length).toBeLessThanOrEqual(maxDefaultDeltas);
    expect(
      deltas.map(({ data }) => (data as { delta: { text: string } }).delta.text).join(''),
    ).toBe(text);
  });

  test('splits text and tool input into deltas that join back to the message', () => {
    const events = toMessageStreamEvents(
      {
        id: 'msg_1',
        model: 'm',
        content: [
          { type: 'text', text: 'hello world' },
          { type: 'tool_use', id: 't1', name: 'SUBMIT', input: { answer: [1, 2, 3] } },
        ],
        stop_reason: 'tool_use',
        usage: { input_tokens: 9, output_tokens: 20, cache_read_input_tokens: 2 },
      },
      { deltaChars: 5 },
    );
    const deltas = (index: number, field: 'text' | 'partial_json') =>
      events
        .map(({ data }) => data as { type: string; index?: number; delta?: Record<string, string> })
        .filter((data) => data.type === 'content_block_delta' && data.index === index)
        .map((data) => data.delta![field]);
    expect(deltas(0, 'text').join('')).toBe('hello world');
    expect(deltas(1, 'partial_json')[0]).toBe('');
    expect(JSON.parse(deltas(1, 'partial_json').join(''))).toEqual({ answer: [1, 2, 3] });
    expect(events[0]!.data).toMatchObject({
      message: { content: [], usage: { input_tokens: 9, output_tokens: 1 } },
    });
    expect(events.at(-2)!.data).toMatchObject({ usage: { output_tokens: 20 } });
  });
});
