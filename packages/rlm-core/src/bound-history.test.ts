import { describe, expect, test } from 'vitest';
import {
  boundHistory,
  compactedStepCount,
  compactedSteps,
  compactionBoundary,
} from './bound-history.js';
import type { Message } from './language-model.js';
import { formatExecution } from './prompts.js';

function conversation(steps: number, outputChars = 1_000): Message[] {
  const messages: Message[] = [{ role: 'user', content: 'Context metadata...\n\nQuery: q' }];
  for (let step = 1; step <= steps; step += 1) {
    messages.push({
      role: 'assistant',
      content: [
        { type: 'text', text: `step ${step}\n\`\`\`repl\nconst v${step} = ${step};\n\`\`\`` },
        { type: 'tool-call', call: { id: `t${step}`, name: 'SUBMIT', input: {} } },
      ],
    });
    messages.push({
      role: 'user',
      content: [
        { type: 'tool-result', toolCallId: `t${step}`, content: 'not readable', isError: true },
        { type: 'text', text: `Code executed:\n...\nREPL output:\n${'o'.repeat(outputChars)}` },
      ],
    });
  }
  return messages;
}

function chars(messages: readonly Message[]): number {
  return JSON.stringify(messages).length;
}

describe('boundHistory', () => {
  test('returns the conversation unchanged when it fits', () => {
    const messages = conversation(3);
    expect(boundHistory(messages, 100_000)).toEqual(messages);
  });

  test('stays under budget however many steps a run takes', () => {
    const sizes = [5, 50, 200].map((steps) => chars(boundHistory(conversation(steps), 20_000)));
    expect(sizes[2]).toBeLessThan(20_000 * 1.4);
    expect(sizes[2]! - sizes[1]!).toBeLessThan(2_000);
  });

  test('keeps the first message, the newest steps whole, and a summary of older ones', () => {
    const bounded = boundHistory(conversation(50), 20_000);
    const first = JSON.stringify(bounded[0]);
    expect(first).toContain('Query: q');
    expect(first).toMatch(/Earlier steps 1-\d+, compacted/);
    expect(first).toContain('const v');
    expect(JSON.stringify(bounded.at(-1))).toContain('t50');
    expect(JSON.stringify(bounded.at(-2))).toContain('step 50');
  });

  test('roles alternate and every kept tool call is answered by the next message', () => {
    const bounded = boundHistory(conversation(80), 15_000);
    for (let index = 1; index < bounded.length; index += 1) {
      expect(bounded[index]!.role).not.toBe(bounded[index - 1]!.role);
      const message = bounded[index]!;
      if (message.role === 'assistant' && typeof message.content !== 'string') {
        const ids = message.content.flatMap((part) =>
          part.type === 'tool-call' ? [part.call.id] : [],
        );
        const answer = JSON.stringify(bounded[index + 1]);
        for (const id of ids) expect(answer).toContain(`"toolCallId":"${id}"`);
      }
    }
  });

  test('the prompt start changes at most 20 times over 101 steps, and stays bounded', () => {
    const messages = conversation(101, 700);
    let changes = 0;
    let previous: string | undefined;
    for (let steps = 1; steps <= 101; steps += 1) {
      const bounded = boundHistory(messages.slice(0, 1 + steps * 2), 20_000);
      const start = JSON.stringify(bounded[0]);
      if (previous !== undefined && start !== previous) changes += 1;
      previous = start;
      expect(chars(bounded)).toBeLessThan(20_000 * 1.4);
    }
    expect(changes).toBeGreaterThan(0);
    expect(changes).toBeLessThanOrEqual(20);
  });
});

describe('compactionBoundary', () => {
  test('nothing is compacted while the steps fit', () => {
    expect(compactionBoundary([10, 10, 10], 30, 10)).toBe(0);
  });

  test('an overflow compacts down to half the room beside the summary, then holds', () => {
    // Room beside the summary: 100; the kept steps shrink to at most 50.
    const sizes = Array.from({ length: 12 }, () => 10);
    expect(compactionBoundary(sizes, 110, 10)).toBe(7);
    expect(compactionBoundary([...sizes, 10], 110, 10)).toBe(7);
    expect(compactionBoundary([...sizes, 10, 10, 10, 10, 10, 10], 110, 10)).toBe(13);
  });

  test('a step larger than the room keeps only the newest step', () => {
    expect(compactionBoundary([10, 10, 500], 100, 10)).toBe(2);
  });
});

describe('compactedSteps', () => {
  test('reads back each block that ran with its exact output; notes and the step line stay out', () => {
    const messages: Message[] = [
      { role: 'user', content: 'Context metadata...\n\nQuery: q' },
      {
        role: 'assistant',
        content: `Two blocks.\n${fence('a = 1')}\n${fence('print(a)\nprint("\\n\\nCode executed:")')}\n${fence('never ran')}`,
      },
      {
        role: 'user',
        content: [
          {
            type: 'text',
            text: [
              formatExecution('a = 1', '', 'repl'),
              formatExecution(
                'print(a)\nprint("\\n\\nCode executed:")',
                '1\n\n\nCode executed:',
                'repl',
              ),
            ].join('\n\n'),
          },
          { type: 'text', text: 'Only the first 2 code blocks of your response ran.' },
          { type: 'text', text: 'Step 2 of 20.' },
        ],
      },
      { role: 'assistant', content: 'No code here.' },
      { role: 'user', content: 'Continue.' },
    ];
    expect(compactedSteps(messages, 2, ['repl'])).toEqual([
      { step: 1, code: 'a = 1', output: '' },
      { step: 1, code: 'print(a)\nprint("\\n\\nCode executed:")', output: '1\n\n\nCode executed:' },
    ]);
    expect(compactedSteps(messages, 0, ['repl'])).toEqual([]);
  });

  test('compactedStepCount is the boundary boundHistory compacts at', () => {
    const messages = conversation(50);
    const count = compactedStepCount(messages, 20_000);
    expect(count).toBeGreaterThan(0);
    expect(JSON.stringify(boundHistory(messages, 20_000)[0])).toContain(
      `Earlier steps 1-${count}, compacted`,
    );
    expect(compactedStepCount(conversation(3), 100_000)).toBe(0);
  });
});

function fence(code: string): string {
  return `\`\`\`repl\n${code}\n\`\`\``;
}
