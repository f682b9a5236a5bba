import { describe, expect, it } from 'vitest';
import type { Message } from './language-model.js';
import {
  emptyContentPlaceholder,
  missingToolResultText,
  normalizeConversation,
} from './normalize-conversation.js';

const call = (id: string, name = 'run') => ({
  type: 'tool-call' as const,
  call: { id, name, input: { code: '1' } },
});

describe('normalizeConversation', () => {
  it('merges consecutive messages of one role and drops blank text', () => {
    const messages: Message[] = [
      { role: 'user', content: 'a' },
      { role: 'user', content: '   ' },
      { role: 'user', content: [{ type: 'text', text: 'b' }] },
      { role: 'assistant', content: 'c' },
      { role: 'assistant', content: '\n' },
      { role: 'user', content: 'd' },
    ];
    expect(normalizeConversation(messages)).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'c' }] },
      { role: 'user', content: [{ type: 'text', text: 'd' }] },
    ]);
  });

  it('opens with a user message and never sends an empty one', () => {
    expect(normalizeConversation([])).toEqual([
      { role: 'user', content: [{ type: 'text', text: emptyContentPlaceholder }] },
    ]);
    expect(
      normalizeConversation([
        { role: 'assistant', content: [call('t1')] },
        { role: 'user', content: [{ type: 'tool-result', toolCallId: 't1', content: 'ok' }] },
      ])[0],
    ).toEqual({ role: 'user', content: [{ type: 'text', text: emptyContentPlaceholder }] });
  });

  it('answers every tool call at the start of the next user message, in call order', () => {
    const result = normalizeConversation([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: [{ type: 'text', text: 'thinking' }, call('t1'), call('t2')] },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'note' },
          { type: 'tool-result', toolCallId: 't2', content: 'two' },
          { type: 'tool-result', toolCallId: 'stray', content: 'x', isError: true },
          { type: 'tool-result', toolCallId: 't2', content: 'again' },
        ],
      },
    ]);
    expect(result[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool-result', toolCallId: 't1', content: missingToolResultText, isError: true },
        { type: 'tool-result', toolCallId: 't2', content: 'two' },
        { type: 'text', text: 'note' },
        { type: 'text', text: 'Tool error result for call stray: x' },
        { type: 'text', text: 'Tool result for call t2: again' },
      ],
    });
  });

  it('answers a trailing assistant tool call and trims a trailing prefill', () => {
    expect(
      normalizeConversation([
        { role: 'user', content: 'q' },
        { role: 'assistant', content: [call('t9')] },
      ]).at(-1),
    ).toEqual({
      role: 'user',
      content: [
        { type: 'tool-result', toolCallId: 't9', content: missingToolResultText, isError: true },
      ],
    });
    expect(
      normalizeConversation([
        { role: 'user', content: 'q' },
        { role: 'assistant', content: 'prefill  \n' },
      ]).at(-1),
    ).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'prefill' }] });
    expect(
      normalizeConversation([
        { role: 'user', content: 'q' },
        { role: 'assistant', content: ' ' },
      ]),
    ).toEqual([{ role: 'user', content: [{ type: 'text', text: 'q' }] }]);
  });

  it('replaces a blank tool result with the placeholder', () => {
    const result = normalizeConversation([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: [call('t1')] },
      { role: 'user', content: [{ type: 'tool-result', toolCallId: 't1', content: '' }] },
    ]);
    expect(result[2]?.content).toEqual([
      { type: 'tool-result', toolCallId: 't1', content: emptyContentPlaceholder },
    ]);
  });

  it('is idempotent', () => {
    const once = normalizeConversation([
      { role: 'assistant', content: [call('t1'), call('t2')] },
      { role: 'user', content: [{ type: 'tool-result', toolCallId: 't2', content: '' }] },
      { role: 'user', content: 'more' },
      { role: 'assistant', content: 'end ' },
    ]);
    expect(normalizeConversation(once)).toEqual(once);
  });
});
