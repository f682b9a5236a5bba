import { describe, expect, test } from 'vitest';
import { ModelCallError, type GenerateRequest, type Message } from '@rlm/core';
import { findMessagesRequestViolation } from './testing/fake-messages-server-validation.js';
import {
  emptyContentPlaceholder,
  toAnthropicRequest,
  withCacheBreakpoints,
} from './to-anthropic-request.js';

const defaults = { model: 'claude-test', maxTokens: 100 };

function call(id: string, input: unknown = {}): Message {
  return {
    role: 'assistant',
    content: [{ type: 'tool-call', call: { id, name: 'lookup', input } }],
  };
}

function result(toolCallId: string, content = 'found', isError?: boolean): Message {
  return { role: 'user', content: [{ type: 'tool-result', toolCallId, content, isError }] };
}

/** Asserts the converted conversation passes the Messages API's rules. */
function expectValid(messages: readonly Message[]) {
  const body = toAnthropicRequest({ system: 's', messages }, defaults);
  expect(findMessagesRequestViolation(body)).toBeUndefined();
  return body.messages;
}

describe('toAnthropicMessages', () => {
  test('drops blank text and merges consecutive same-role messages', () => {
    expect(
      expectValid([
        { role: 'user', content: 'a' },
        { role: 'user', content: '   ' },
        {
          role: 'user',
          content: [
            { type: 'text', text: '' },
            { type: 'text', text: 'b' },
          ],
        },
        { role: 'assistant', content: 'c' },
        { role: 'assistant', content: 'd' },
        { role: 'user', content: 'e' },
      ]),
    ).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'c' },
          { type: 'text', text: 'd' },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'e' }] },
    ]);
  });

  test('an empty turn says (empty); an empty conversation is one placeholder user message', () => {
    expect(
      expectValid([
        { role: 'user', content: 'q' },
        { role: 'assistant', content: ' ' },
        { role: 'user', content: 'again' },
      ])[1],
    ).toEqual({ role: 'assistant', content: [{ type: 'text', text: emptyContentPlaceholder }] });
    expect(expectValid([])).toEqual([
      { role: 'user', content: [{ type: 'text', text: emptyContentPlaceholder }] },
    ]);
  });

  test('a conversation starting with the assistant gets a placeholder user message first', () => {
    const messages = expectValid([
      { role: 'assistant', content: 'hello' },
      { role: 'user', content: 'hi' },
    ]);
    expect(messages[0]).toEqual({
      role: 'user',
      content: [{ type: 'text', text: emptyContentPlaceholder }],
    });
    expect(messages).toHaveLength(3);
  });

  test('tool results are moved to the front and ordered as the calls were', () => {
    const messages = expectValid([
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'two lookups' },
          { type: 'tool-call', call: { id: 't1', name: 'lookup', input: { q: 1 } } },
          { type: 'tool-call', call: { id: 't2', name: 'lookup', input: { q: 2 } } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'note' },
          { type: 'tool-result', toolCallId: 't2', content: 'two' },
          { type: 'tool-result', toolCallId: 't1', content: 'one', isError: true },
        ],
      },
    ]);
    expect(messages[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 't1', content: 'one', is_error: true },
        { type: 'tool_result', tool_use_id: 't2', content: 'two' },
        { type: 'text', text: 'note' },
      ],
    });
  });

  test('a tool call without a result gets a synthesized error result', () => {
    const messages = expectValid([
      { role: 'user', content: 'q' },
      call('t1'),
      { role: 'user', content: 'what happened?' },
    ]);
    expect(messages[2]!.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 't1',
        is_error: true,
        content: 'No result was recorded for this tool call.',
      },
      { type: 'text', text: 'what happened?' },
    ]);
  });

  test('a trailing tool call gets a user message with a synthesized result', () => {
    const messages = expectValid([{ role: 'user', content: 'q' }, call('t1')]);
    expect(messages).toHaveLength(3);
    expect(messages[2]!.content).toMatchObject([{ tool_use_id: 't1', is_error: true }]);
  });

  test('orphan and duplicate tool results become text', () => {
    const messages = expectValid([
      result('ghost', 'boo'),
      call('t1'),
      {
        role: 'user',
        content: [
          { type: 'tool-result', toolCallId: 't1', content: 'first' },
          { type: 'tool-result', toolCallId: 't1', content: 'again', isError: true },
        ],
      },
    ]);
    expect(messages[0]!.content).toEqual([
      { type: 'text', text: 'Tool result for call ghost: boo' },
    ]);
    expect(messages[2]!.content).toEqual([
      { type: 'tool_result', tool_use_id: 't1', content: 'first' },
      { type: 'text', text: 'Tool error result for call t1: again' },
    ]);
  });

  test('a blank tool result and an undecodable tool input are replaced, not sent empty', () => {
    const messages = expectValid([
      { role: 'user', content: 'q' },
      call('t1', undefined),
      result('t1', ' ', true),
    ]);
    expect(messages[1]!.content).toEqual([
      { type: 'tool_use', id: 't1', name: 'lookup', input: {} },
    ]);
    expect(messages[2]!.content).toEqual([
      { type: 'tool_result', tool_use_id: 't1', content: emptyContentPlaceholder, is_error: true },
    ]);
  });

  test('a trailing assistant text is kept as a prefill without trailing whitespace', () => {
    const messages = expectValid([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'The answer is \n' },
    ]);
    expect(messages[1]).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'The answer is' }],
    });
    expect(
      expectValid([
        { role: 'user', content: 'q' },
        { role: 'assistant', content: '  ' },
      ]),
    ).toHaveLength(1);
  });

  test('random histories always convert to a conversation the API accepts', () => {
    // mulberry32: a small seeded generator, so a failure reproduces.
    let seed = 42;
    const random = (n: number) => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return Math.floor((((t ^ (t >>> 14)) >>> 0) / 2 ** 32) * n);
    };
    const texts = ['', ' ', '\n\t', 'x', 'trailing ', 'hello'];
    for (let run = 0; run < 500; run++) {
      const messages: Message[] = [];
      const ids: string[] = [];
      const length = random(8);
      for (let index = 0; index < length; index++) {
        const text = texts[random(texts.length)]!;
        if (random(2) === 0) {
          const parts = Array.from({ length: random(3) }, () =>
            random(2) === 0
              ? { type: 'text' as const, text: texts[random(texts.length)]! }
              : {
                  type: 'tool-result' as const,
                  toolCallId: ids[random(ids.length + 1)] ?? 'orphan',
                  content: texts[random(texts.length)]!,
                  isError: random(2) === 0,
                },
          );
          messages.push({ role: 'user', content: random(3) === 0 ? text : parts });
        } else {
          const parts = Array.from({ length: random(3) }, () => {
            if (random(2) === 0)
              return { type: 'text' as const, text: texts[random(texts.length)]! };
            const id = `t${run}_${index}_${ids.length}`;
            ids.push(id);
            return { type: 'tool-call' as const, call: { id, name: 'f', input: {} } };
          });
          messages.push({ role: 'assistant', content: random(3) === 0 ? text : parts });
        }
      }
      const body = toAnthropicRequest({ system: '', messages }, defaults);
      expect(findMessagesRequestViolation(body), JSON.stringify(messages)).toBeUndefined();
    }
  });
});

describe('toAnthropicRequest', () => {
  const tools = [
    { name: 'SUBMIT', description: 'Submit the answer', inputSchema: { type: 'object' } },
  ];
  const request: GenerateRequest = { system: 'sys', messages: [{ role: 'user', content: 'q' }] };

  test('maps tools, tool choices, max tokens and the system prompt', () => {
    expect(
      toAnthropicRequest({ ...request, tools, toolChoice: { tool: 'SUBMIT' } }, defaults),
    ).toEqual({
      model: 'claude-test',
      max_tokens: 100,
      system: 'sys',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'q' }] }],
      tools: [
        { name: 'SUBMIT', description: 'Submit the answer', input_schema: { type: 'object' } },
      ],
      tool_choice: { type: 'tool', name: 'SUBMIT' },
    });
    expect(
      toAnthropicRequest({ ...request, tools, toolChoice: 'auto' }, defaults).tool_choice,
    ).toEqual({
      type: 'auto',
    });
    expect(
      toAnthropicRequest({ ...request, tools, toolChoice: 'none' }, defaults).tool_choice,
    ).toEqual({
      type: 'none',
    });
    expect(toAnthropicRequest({ ...request, maxTokens: 7 }, defaults).max_tokens).toBe(7);
  });

  test('omits a blank system prompt, empty tools, and a tool choice without tools', () => {
    const body = toAnthropicRequest(
      { ...request, system: ' ', tools: [], toolChoice: 'auto' },
      defaults,
    );
    expect(body).not.toHaveProperty('system');
    expect(body).not.toHaveProperty('tools');
    expect(body).not.toHaveProperty('tool_choice');
  });

  test('a tool choice naming an unknown tool is a ModelCallError before any request', () => {
    expect(() =>
      toAnthropicRequest({ ...request, tools, toolChoice: { tool: 'nope' } }, defaults),
    ).toThrow(ModelCallError);
  });
});

describe('withCacheBreakpoints', () => {
  const tool = { name: 'SUBMIT', description: 'd', inputSchema: { type: 'object' } };
  const conversation: Message[] = [
    { role: 'user', content: 'question' },
    { role: 'assistant', content: 'step 1' },
    { role: 'user', content: 'output 1' },
    { role: 'assistant', content: 'step 2' },
    { role: 'user', content: 'output 2' },
  ];

  function marks(body: ReturnType<typeof withCacheBreakpoints>): string[] {
    const found: string[] = [];
    body.tools?.forEach((entry, index) => {
      if ('cache_control' in entry && entry.cache_control) found.push(`tool ${index}`);
    });
    if (Array.isArray(body.system)) {
      body.system.forEach((block, index) => {
        if (block.cache_control) found.push(`system ${index}`);
      });
    }
    body.messages.forEach((message, index) => {
      if (typeof message.content === 'string') return;
      message.content.forEach((block, position) => {
        if ('cache_control' in block && block.cache_control)
          found.push(`message ${index}.${position}`);
      });
    });
    return found;
  }

  test('the last tool, the system prompt and the two newest user messages: four in all', () => {
    const plain = toAnthropicRequest(
      { system: 'sys', messages: conversation, tools: [tool, { ...tool, name: 'OTHER' }] },
      defaults,
    );
    const body = withCacheBreakpoints(plain);
    expect(marks(body)).toEqual(['tool 1', 'system 0', 'message 2.0', 'message 4.0']);
    expect(findMessagesRequestViolation(body)).toBeUndefined();
    // The input body is left as it was.
    expect(JSON.stringify(plain)).not.toContain('cache_control');
  });

  test('without tools or system, only the user messages are marked', () => {
    const body = withCacheBreakpoints(
      toAnthropicRequest({ system: ' ', messages: conversation }, defaults),
    );
    expect(marks(body)).toEqual(['message 2.0', 'message 4.0']);
    expect(body.system).toBeUndefined();
  });

  test('the mark goes on the last block of a user message, tool results included', () => {
    const body = withCacheBreakpoints(
      toAnthropicRequest(
        {
          system: 's',
          messages: [{ role: 'user', content: 'q' }, call('toolu_1'), result('toolu_1')],
        },
        defaults,
      ),
    );
    const last = body.messages.at(-1)!.content as { type: string; cache_control?: unknown }[];
    expect(last.at(-1)).toMatchObject({
      type: 'tool_result',
      cache_control: { type: 'ephemeral' },
    });
  });
});
