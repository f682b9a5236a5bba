import { createOpenAI } from '@ai-sdk/openai';
import { createAISDKModel } from '@rlm/ai-sdk';
import { createRLM, type RlmEvent } from '@rlm/core';
import {
  type FakeChatRequest,
  fakeChatText,
  fakeChatToolCall,
  startFakeChatCompletionsServer,
} from '@rlm/openai/testing';
import { describe, expect, test } from 'vitest';
import { sandboxFactory } from './sandbox-under-test.js';

const repl = (code: string) => `\`\`\`repl\n${code}\n\`\`\``;
const apiKey = 'sk-proj-ai-sdk-integration-key';

async function collect(stream: AsyncIterable<RlmEvent>): Promise<RlmEvent[]> {
  const events: RlmEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('the loop through @rlm/ai-sdk, @ai-sdk/openai and the strict fake server', () => {
  test('a needle in the context, then SUBMIT {variable}', async () => {
    const lines = Array.from({ length: 2_000 }, (_, index) => `row ${index}`);
    lines[1_234] = 'row 1234 holds the key AX-99';
    await using server = await startFakeChatCompletionsServer({
      apiKey,
      replies: [
        fakeChatText(
          repl('const found = context.split("\\n").find((line) => line.includes("key"));'),
        ),
        fakeChatText(repl('const key = found.split(" ").at(-1);')),
        fakeChatToolCall('SUBMIT', { variable: 'key' }),
      ],
    });
    const llm = createAISDKModel(createOpenAI({ apiKey, baseURL: server.url }).chat('gpt-4.1'), {
      maxRetries: 0,
    });
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory });
    const result = await rlm.query('Which key?', lines.join('\n'));
    expect(result.answer).toBe('AX-99');
    expect(server.requests.map((request) => request.status)).toEqual([200, 200, 200]);
  });

  test('llm_query and a nested sub_rlm finish through the same model', async () => {
    await using server = await startFakeChatCompletionsServer({
      apiKey,
      handler: (request) => {
        const first = JSON.stringify(request.messages.find((message) => message.role === 'user'));
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
        if (first.includes('Query: child')) return fakeChatToolCall('SUBMIT', { answer: 'kid' });
        return fakeChatText('hi');
      },
    });
    const llm = createAISDKModel(createOpenAI({ apiKey, baseURL: server.url }).chat('gpt-4.1'), {
      maxRetries: 0,
    });
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory });
    const result = await rlm.query('root', 'ctx');
    expect(result.answer).toBe('hi+kid');
    expect(server.requests.every((request) => request.status === 200)).toBe(true);
  });

  test('a server that refuses tools: one warning, then the text protocol', async () => {
    await using server = await startFakeChatCompletionsServer({
      apiKey,
      toolsUnsupported: true,
      replies: [fakeChatText('FINAL(text only)')],
    });
    const llm = createAISDKModel(createOpenAI({ apiKey, baseURL: server.url }).chat('tiny'), {
      maxRetries: 0,
    });
    await using rlm = createRLM({ model: llm, sandbox: sandboxFactory });
    const events = await collect(rlm.queryStream('q', 'c'));
    expect(events.at(-1)).toMatchObject({ type: 'final', answer: 'text only' });
    expect(
      events.filter((event) => event.type === 'warning' && event.code === 'tools-unsupported'),
    ).toHaveLength(1);
    expect((server.requests[1]!.body as FakeChatRequest).tools).toBeUndefined();
  });
});
