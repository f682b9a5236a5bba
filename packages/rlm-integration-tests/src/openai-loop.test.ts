import { createRLM, type RlmEvent } from '@rlm/core';
import { createOpenAIModel } from '@rlm/openai';
import {
  type FakeChatRequest,
  fakeChatText,
  fakeChatToolCall,
  startFakeChatCompletionsServer,
} from '@rlm/openai/testing';
import { describe, expect, test } from 'vitest';
import { sandboxFactory } from './sandbox-under-test.js';

const repl = (code: string) => `\`\`\`repl\n${code}\n\`\`\``;
const apiKey = 'sk-proj-integration-key-never-leaks';

async function collect(stream: AsyncIterable<RlmEvent>): Promise<RlmEvent[]> {
  const events: RlmEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** The first user message of a request: where the loop states the query. */
function firstUserText(request: FakeChatRequest): string {
  return JSON.stringify(request.messages.find((message) => message.role === 'user')?.content);
}

describe('the loop through the openai SDK and a strict fake Chat Completions server', () => {
  test('a needle in a large context, then SUBMIT {variable}: every request is valid', async () => {
    const lines = Array.from({ length: 5_000 }, (_, index) => `line ${index}: filler text`);
    lines[3_217] = 'line 3217: the secret code is NEEDLE-7731';
    await using server = await startFakeChatCompletionsServer({
      apiKey,
      replies: [
        fakeChatText(
          `Searching.\n${repl('const hit = context.split("\\n").find((line) => line.includes("NEEDLE"));\nprint(hit);')}`,
        ),
        fakeChatText(repl('const code = hit.match(/NEEDLE-\\d+/)[0];')),
        fakeChatToolCall('SUBMIT', { variable: 'code' }, { id: 'call_submit' }),
      ],
    });
    const llm = createOpenAIModel({ model: 'gpt-4.1', apiKey, baseURL: server.url, maxRetries: 0 });
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory });
    const result = await rlm.query('What is the secret code?', lines.join('\n'));
    expect(result.answer).toBe('NEEDLE-7731');
    expect(server.requests.map((request) => request.status)).toEqual([200, 200, 200]);
    const last = server.requests[2]!.body as FakeChatRequest;
    expect(last.tools?.map((tool) => tool.function.name)).toEqual(['SUBMIT']);
    expect(JSON.stringify(last.messages)).toContain('line 3217: the secret code is NEEDLE-7731');
    // The whole context never crosses the token boundary.
    expect(JSON.stringify(last.messages)).not.toContain('line 2500');
  });

  test('streamed text arrives as text-delta events before the step text', async () => {
    const prose = 'Counting the words of the context first, then answering.';
    await using server = await startFakeChatCompletionsServer({
      apiKey,
      replies: [
        fakeChatText(`${prose}\n${repl('const words = context.split(" ").length;')}`),
        fakeChatText('FINAL_VAR(words)'),
      ],
    });
    const llm = createOpenAIModel({ model: 'gpt-4.1', apiKey, baseURL: server.url, maxRetries: 0 });
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory });
    const events = await collect(rlm.queryStream('How many words?', 'one two three'));
    expect(events.at(-1)).toMatchObject({ type: 'final', answer: 3 });
    const firstText = events.findIndex((event) => event.type === 'text');
    const deltas = events
      .slice(0, firstText)
      .flatMap((event) => (event.type === 'text-delta' ? [event] : []));
    expect(deltas.length).toBeGreaterThan(1);
    const text = events[firstText] as Extract<RlmEvent, { type: 'text' }>;
    expect(deltas.map((event) => event.text).join('')).toBe(text.text);
    expect(deltas.every((event) => event.iteration === text.iteration)).toBe(true);
  });

  test('llm_query and a nested sub_rlm run through the same server and finish', async () => {
    await using server = await startFakeChatCompletionsServer({
      apiKey,
      handler: (request) => {
        const first = firstUserText(request);
        const last = JSON.stringify(request.messages.at(-1));
        if (first.includes('Query: root')) {
          return last.includes('REPL output')
            ? fakeChatText('FINAL_VAR(both)')
            : fakeChatText(
                repl(
                  'const both = (await Promise.all([llm_query("say hi"), sub_rlm("child", "xyz")])).join("+");',
                ),
              );
        }
        if (first.includes('Query: child')) {
          return fakeChatToolCall('SUBMIT', { answer: 'child-answer' });
        }
        return fakeChatText('hi');
      },
    });
    const llm = createOpenAIModel({ model: 'gpt-4.1', apiKey, baseURL: server.url, maxRetries: 0 });
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory });
    const result = await rlm.query('root', 'ctx');
    expect(result.answer).toBe('hi+child-answer');
    expect(result.depthReached).toBe(1);
    expect(server.requests.length).toBeGreaterThanOrEqual(4);
    expect(server.requests.every((request) => request.status === 200)).toBe(true);
  });

  test('a SUBMIT of a missing variable: a tool message answers the call in the next request', async () => {
    await using server = await startFakeChatCompletionsServer({
      apiKey,
      replies: [
        fakeChatToolCall('SUBMIT', { variable: 'missing' }, { id: 'call_bad', text: 'Done.' }),
        fakeChatToolCall('SUBMIT', { answer: 'fixed' }, { id: 'call_good' }),
      ],
    });
    const llm = createOpenAIModel({ model: 'gpt-4.1', apiKey, baseURL: server.url, maxRetries: 0 });
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory });
    const result = await rlm.query('q', 'c');
    expect(result.answer).toBe('fixed');
    const second = server.requests[1]!.body as FakeChatRequest;
    const callIndex = second.messages.findIndex((message) => message.tool_calls !== undefined);
    expect(second.messages[callIndex + 1]).toMatchObject({
      role: 'tool',
      tool_call_id: 'call_bad',
    });
    expect(server.requests.every((request) => request.status === 200)).toBe(true);
  });

  test('out of iterations: the extract request forces the SUBMIT function', async () => {
    await using server = await startFakeChatCompletionsServer({
      apiKey,
      replies: [
        fakeChatText(repl('const best = 41 + 1;')),
        fakeChatToolCall('SUBMIT', { variable: 'best' }),
      ],
    });
    const llm = createOpenAIModel({ model: 'gpt-4.1', apiKey, baseURL: server.url, maxRetries: 0 });
    await using rlm = createRLM({
      model: llm,
      sandbox: sandboxFactory,
      limits: { maxIterations: 1 },
    });
    expect((await rlm.query('q', 'c')).answer).toBe(42);
    expect((server.requests[1]!.body as FakeChatRequest).tool_choice).toEqual({
      type: 'function',
      function: { name: 'SUBMIT' },
    });
  });

  test('a model that refuses tools: one warning, then the text protocol to the end', async () => {
    await using server = await startFakeChatCompletionsServer({
      apiKey: null,
      toolsUnsupported: true,
      replies: [
        fakeChatText(repl('const total = context.split(",").length;')),
        fakeChatText('FINAL_VAR(total)'),
      ],
    });
    const llm = createOpenAIModel({ model: 'llama3.2', baseURL: server.url, maxRetries: 0 });
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory });
    const events = await collect(rlm.queryStream('How many items?', 'a,b,c,d'));
    expect(events.at(-1)).toMatchObject({ type: 'final', answer: 4 });
    expect(
      events.filter((event) => event.type === 'warning' && event.code === 'tools-unsupported'),
    ).toHaveLength(1);
    expect(server.requests.map((request) => request.status)).toEqual([400, 200, 200]);
    const later = server.requests.slice(1).map((request) => request.body as FakeChatRequest);
    expect(later.every((body) => body.tools === undefined)).toBe(true);
    expect(JSON.stringify(later[0]?.messages[0])).toContain('FINAL(');
  });
});
