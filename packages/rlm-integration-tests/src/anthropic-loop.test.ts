import { createRLM, type RlmEvent } from '@rlm/core';
import { createAnthropicModel } from '@rlm/anthropic';
import {
  fakeError,
  fakeText,
  fakeToolUse,
  fakeTruncatedToolUse,
  startFakeMessagesServer,
} from '@rlm/anthropic/testing';
import { describe, expect, test } from 'vitest';
import { sandboxFactory } from './sandbox-under-test.js';

const repl = (code: string) => `\`\`\`repl\n${code}\n\`\`\``;
const apiKey = 'sk-ant-test-key-never-leaks';

async function collect(stream: AsyncIterable<RlmEvent>): Promise<RlmEvent[]> {
  const events: RlmEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('the loop through the real Anthropic SDK and a validating fake server', () => {
  test('code steps, then SUBMIT {variable}: every request passes the API validation', async () => {
    await using server = await startFakeMessagesServer({
      replies: [
        fakeText(
          `Looking at the size first.\n${repl('const lines = context.split("\\n");\nprint(lines.length);')}`,
        ),
        fakeText(repl('const summary = "lines: " + lines.length;')),
        fakeToolUse('SUBMIT', { variable: 'summary' }),
      ],
    });
    const llm = createAnthropicModel({ apiKey, baseURL: server.url, maxRetries: 0 });
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory });
    const result = await rlm.query('How many lines?', 'a\nb\nc');
    expect(result.answer).toBe('lines: 3');
    expect(server.requests.map((request) => request.status)).toEqual([200, 200, 200]);
    const body = server.requests[2]!.body as { tools: { name: string }[]; messages: unknown[] };
    expect(body.tools.map((tool) => tool.name)).toEqual(['SUBMIT']);
    expect(JSON.stringify(body.messages)).toContain('REPL output');
    expect(JSON.stringify(body.messages)).not.toContain('"text":""');
  });

  test('a needle in a large context, streamed, then SUBMIT {variable}: every request is valid', async () => {
    const lines = Array.from({ length: 5_000 }, (_, index) => `line ${index}: filler text`);
    lines[2_904] = 'line 2904: the secret code is NEEDLE-4410';
    await using server = await startFakeMessagesServer({
      apiKey,
      replies: [
        fakeText(
          `Searching.\n${repl('const hit = context.split("\\n").find((line) => line.includes("NEEDLE"));\nprint(hit);')}`,
        ),
        fakeText(repl('const code = hit.match(/NEEDLE-\\d+/)[0];')),
        fakeToolUse('SUBMIT', { variable: 'code' }, { stream: { deltaChars: 2 } }),
      ],
    });
    const llm = createAnthropicModel({ apiKey, baseURL: server.url, maxRetries: 0 });
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory });
    const result = await rlm.query('What is the secret code?', lines.join('\n'));
    expect(result.answer).toBe('NEEDLE-4410');
    expect(server.requests.map((request) => request.status)).toEqual([200, 200, 200]);
    expect(server.requests.every((request) => (request.body as { stream?: boolean }).stream)).toBe(
      true,
    );
    const last = JSON.stringify((server.requests[2]!.body as { messages: unknown[] }).messages);
    expect(last).toContain('line 2904: the secret code is NEEDLE-4410');
    // The whole context never crosses the token boundary.
    expect(last).not.toContain('line 2500');
  });

  test('streamed text arrives as text-delta events before the step text', async () => {
    const prose = 'Counting the words of the context first, then answering.';
    await using server = await startFakeMessagesServer({
      replies: [
        fakeText(`${prose}\n${repl('const words = context.split(" ").length;')}`, {
          stream: { deltaChars: 6 },
        }),
        fakeText('FINAL_VAR(words)'),
      ],
    });
    const llm = createAnthropicModel({ apiKey, baseURL: server.url, maxRetries: 0 });
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory });
    const events = await collect(rlm.queryStream('How many words?', 'one two three'));
    expect(events.at(-1)).toMatchObject({ type: 'final', answer: 3 });
    const firstText = events.findIndex((event) => event.type === 'text');
    const deltas = events
      .slice(0, firstText)
      .flatMap((event) => (event.type === 'text-delta' ? [event] : []));
    expect(deltas.length).toBeGreaterThan(5);
    const text = events[firstText] as Extract<RlmEvent, { type: 'text' }>;
    expect(deltas.map((event) => event.text).join('')).toBe(text.text);
  });

  test('a gateway that refuses tools: one warning, then the text protocol to the end', async () => {
    await using server = await startFakeMessagesServer({
      handler: (request) => {
        if (request.tools !== undefined) {
          return fakeError(400, { message: 'tools: this deployment does not support tool use' });
        }
        const last = JSON.stringify(request.messages.at(-1));
        return last.includes('REPL output')
          ? fakeText('FINAL_VAR(total)')
          : fakeText(repl('const total = context.split(",").length;'));
      },
    });
    const llm = createAnthropicModel({ apiKey, baseURL: server.url, maxRetries: 0 });
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory });
    const events = await collect(rlm.queryStream('How many items?', 'a,b,c,d'));
    expect(events.at(-1)).toMatchObject({ type: 'final', answer: 4 });
    expect(
      events.filter((event) => event.type === 'warning' && event.code === 'tools-unsupported'),
    ).toHaveLength(1);
    expect(server.requests.map((request) => request.status)).toEqual([400, 200, 200]);
    const later = server.requests.slice(1).map((request) => request.body as { tools?: unknown });
    expect(later.every((body) => body.tools === undefined)).toBe(true);
  });

  test('a max_tokens stop inside SUBMIT: the tool_result answers it in the next request', async () => {
    await using server = await startFakeMessagesServer({
      replies: [
        fakeTruncatedToolUse('SUBMIT', { answer: 'a very long answ' }, { id: 'toolu_cut' }),
        fakeToolUse('SUBMIT', { answer: 'short answer' }, { id: 'toolu_ok' }),
      ],
    });
    const llm = createAnthropicModel({ apiKey, baseURL: server.url, maxRetries: 0 });
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory });
    const events = await collect(rlm.queryStream('q', 'c'));
    expect(events.at(-1)).toMatchObject({ type: 'final', answer: 'short answer' });
    expect(
      events.some((event) => event.type === 'warning' && event.code === 'submit-unreadable'),
    ).toBe(true);
    const second = server.requests[1]!.body as {
      messages: {
        role: string;
        content: { type: string; tool_use_id?: string; is_error?: boolean }[];
      }[];
    };
    const lastUser = second.messages.at(-1)!;
    expect(lastUser.role).toBe('user');
    expect(lastUser.content[0]).toMatchObject({
      type: 'tool_result',
      tool_use_id: 'toolu_cut',
      is_error: true,
    });
    expect(server.requests.every((request) => request.status === 200)).toBe(true);
  });

  test('out of iterations: the extract request forces the SUBMIT tool', async () => {
    await using server = await startFakeMessagesServer({
      replies: [
        fakeText(repl('const best = 41 + 1;')),
        fakeToolUse('SUBMIT', { variable: 'best' }),
      ],
    });
    const llm = createAnthropicModel({ apiKey, baseURL: server.url, maxRetries: 0 });
    await using rlm = createRLM({
      model: llm,
      sandbox: sandboxFactory,
      limits: { maxIterations: 1 },
    });
    const result = await rlm.query('q', 'c');
    expect(result.answer).toBe(42);
    expect((server.requests[1]!.body as { tool_choice: unknown }).tool_choice).toEqual({
      type: 'tool',
      name: 'SUBMIT',
    });
  });

  test('llm_query and sub_rlm from model code go through the same API and finish', async () => {
    await using server = await startFakeMessagesServer({
      handler: (request) => {
        const first = JSON.stringify(request.messages[0]);
        const last = JSON.stringify(request.messages.at(-1));
        if (first.includes('Query: root')) {
          return last.includes('REPL output')
            ? fakeText('FINAL_VAR(both)')
            : fakeText(
                repl(
                  'const both = (await Promise.all([llm_query("say hi"), sub_rlm("child", "xyz")])).join("+");',
                ),
              );
        }
        if (first.includes('Query: child')) {
          return fakeToolUse('SUBMIT', { answer: 'child-answer' });
        }
        return fakeText('hi');
      },
    });
    const llm = createAnthropicModel({ apiKey, baseURL: server.url, maxRetries: 0 });
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory });
    const result = await rlm.query('root', 'ctx');
    expect(result.answer).toBe('hi+child-answer');
    expect(result.depthReached).toBe(1);
    expect(server.requests.every((request) => request.status === 200)).toBe(true);
  });

  test('a non-retryable API error fails the run with a clear message and no API key', async () => {
    await using server = await startFakeMessagesServer({
      replies: [fakeError(400, { message: 'prompt is too long' })],
    });
    const llm = createAnthropicModel({ apiKey, baseURL: server.url, maxRetries: 0 });
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory });
    const error = (await rlm.query('q', 'c').catch((caught: unknown) => caught)) as Error;
    expect(error.name).toBe('ModelCallError');
    expect(error.message).toContain('prompt is too long');
    expect(JSON.stringify(error) + error.message + String(error.stack)).not.toContain(apiKey);
  });
});
