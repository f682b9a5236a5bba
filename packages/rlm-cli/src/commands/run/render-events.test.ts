import type { RlmEvent } from '@rlm/core';
import { describe, expect, test } from 'vitest';
import { createEventRenderer } from './render-events.js';

function render(
  events: readonly RlmEvent[],
  options: { color?: boolean; width?: number; streamText?: boolean } = {},
) {
  let text = '';
  const renderEvent = createEventRenderer({
    write: (chunk) => {
      text += chunk;
    },
    color: options.color ?? false,
    width: options.width,
    streamText: options.streamText,
  });
  for (const event of events) renderEvent(event);
  return text;
}

const root = { callId: 'call-1', depth: 0 } as const;
const totals = {
  usage: {
    inputTokens: 10,
    outputTokens: 5,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    modelCalls: 1,
  },
  depthReached: 1,
  durationMs: 12,
} as const;
const child = { callId: 'call-2', depth: 1 } as const;

describe('createEventRenderer', () => {
  test('a root step: prose without its code fences, code, output, then its cost', () => {
    const text = render([
      { ...root, type: 'call-start', query: 'how many lines?' },
      { ...root, type: 'step-start', iteration: 1 },
      {
        ...root,
        type: 'usage',
        usage: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 900 },
        modelId: 'anthropic:claude-sonnet-5-5',
        costUsd: 0.0005,
        modelCalls: 1,
      },
      {
        ...root,
        type: 'text',
        iteration: 1,
        text: 'Let me count.\n```repl\nprint(context.split("\\n").length)\n```\n',
      },
      {
        ...root,
        type: 'code',
        iteration: 1,
        index: 0,
        code: 'print(context.split("\\n").length)\n',
      },
      {
        ...root,
        type: 'execution',
        iteration: 1,
        index: 0,
        output: '3\n',
        shownToModel: '3\n',
        durationMs: 4,
      },
      {
        ...root,
        type: 'usage',
        usage: { inputTokens: 10, outputTokens: 5 },
        modelId: 'anthropic:claude-sonnet-5-5',
        costUsd: 0.0001,
        modelCalls: 2,
        requestId: 'bridge-1',
      },
      { ...root, type: 'step-complete', iteration: 1, durationMs: 2_300 },
      { ...root, type: 'step-start', iteration: 2 },
      {
        ...root,
        type: 'usage',
        usage: { inputTokens: 10, outputTokens: 5 },
        modelId: 'local:unpriced',
        modelCalls: 3,
      },
      {
        ...root,
        type: 'final',
        answer: '3',
        iterations: 2,
        source: 'final-text',
        ...totals,
        usage: {
          inputTokens: 1_000,
          outputTokens: 300,
          cacheReadTokens: 900,
          cacheWriteTokens: 0,
          modelCalls: 3,
          costUsd: 0.009,
          unpricedModelCalls: 1,
        },
      },
    ]);
    expect(text).toBe(
      [
        '● step 1',
        '  Let me count.',
        '  ┃ print(context.split("\\n").length)',
        '  → 3',
        '  · 1,035 tokens (900 cache reads) · $0.0006 · 2.3 s · run so far $0.0006',
        '● step 2',
        '✓ answered after 2 steps · 2,200 tokens (900 cache reads) · $0.0090 + 1 unpriced call',
        '',
      ].join('\n'),
    );
  });

  test('errors, empty output, warnings, sub-calls indented by depth', () => {
    const text = render([
      {
        ...root,
        type: 'execution',
        iteration: 1,
        index: 0,
        output: '',
        shownToModel: '',
        durationMs: 12,
      },
      { ...root, type: 'bridge-call', requestId: 'r1', name: 'llm_query' },
      { ...root, type: 'bridge-call', requestId: 'r2', name: 'sub_rlm' },
      {
        ...root,
        type: 'bridge-result',
        requestId: 'r1',
        name: 'llm_query',
        ok: false,
        durationMs: 3,
        error: 'rate limited',
      },
      {
        ...root,
        type: 'execution',
        iteration: 1,
        index: 1,
        output: 'partial',
        error: 'ReferenceError: x is not defined\n    at <repl>',
        shownToModel: 'partial\nError: ReferenceError: x is not defined\n    at <repl>',
        durationMs: 1,
      },
      { ...root, type: 'warning', code: 'empty-response', message: 'no code and\nno answer' },
      { ...child, type: 'call-start', query: 'summarize\npart 1', parentCallId: 'call-1' },
      { ...child, type: 'step-start', iteration: 1 },
      {
        ...child,
        type: 'final',
        answer: { total: 2 },
        iterations: 1,
        source: 'final-var',
        ...totals,
      },
      { ...child, type: 'call-error', message: 'boom', errorName: 'ModelCallError' },
      { ...root, type: 'call-error', message: 'not rendered', errorName: 'ModelCallError' },
    ]);
    expect(text).toBe(
      [
        '  → (no output, 12 ms)',
        '  → partial',
        '  ⇢ 1 llm_query call: 0 answered, 1 failed',
        '  ✗ llm_query failed: rate limited',
        '  ✗ ReferenceError: x is not defined',
        '⚠ no code and no answer',
        '  ↳ sub_rlm: summarize part 1',
        '  ● step 1',
        '  ✓ sub_rlm answered: {"total":2}',
        '  ✗ sub_rlm failed: boom',
        '',
      ].join('\n'),
    );
  });

  test('output and error arrive apart and show once each; resumes and sync failures show', () => {
    const text = render([
      {
        ...root,
        type: 'execution',
        iteration: 3,
        index: 0,
        output: 'before',
        error: 'TypeError: rows is not iterable',
        shownToModel: 'before\nTypeError: rows is not iterable',
        durationMs: 2,
      },
      { ...root, type: 'resumed', iteration: 2, restored: ['numbers', 'total'], lost: ['parse'] },
      {
        ...root,
        type: 'variable-sync-failed',
        reason: 'code-executed',
        message: 'worker busy',
        retries: 3,
        timedOut: false,
      },
      { ...root, type: 'checkpoint', iteration: 3, checkpointId: 'c1', durationMs: 4 },
    ]);
    expect(text).toBe(
      [
        '  → before',
        '  ✗ TypeError: rows is not iterable',
        '↻ resumed after step 2 (restored: numbers, total; lost: parse)',
        "⚠ could not list the sandbox's variables: worker busy",
        '',
      ].join('\n'),
    );
  });

  test('long blocks are cut to a few lines, long lines to the width', () => {
    const code = Array.from({ length: 20 }, (_, index) => `line ${index}`).join('\n');
    const text = render(
      [
        { ...root, type: 'code', iteration: 1, index: 0, code },
        {
          ...root,
          type: 'execution',
          iteration: 1,
          index: 0,
          output: 'x'.repeat(100),
          shownToModel: 'x'.repeat(100),
          durationMs: 1,
        },
      ],
      { width: 40 },
    );
    const lines = text.split('\n');
    expect(lines.slice(10, 13)).toEqual(['  ┃ line 10', '  ┃ line 11', '  ┃ … 8 more lines']);
    expect(lines[13]).toBe(`  → ${'x'.repeat(35)}…`);
    expect(lines[13]).toHaveLength(40);
  });

  test('control characters from model output never reach the terminal', () => {
    const text = render([
      {
        ...root,
        type: 'execution',
        iteration: 1,
        index: 0,
        output: 'a\u001b[2Jb\rc\u0007',
        shownToModel: 'a\u001b[2Jb\rc\u0007',
        durationMs: 1,
      },
    ]);
    expect(text).toBe('  → a[2Jbc\n');
  });

  test('colours only when asked', () => {
    const event: RlmEvent = { ...root, type: 'warning', code: 'stall', message: 'careful' };
    expect(render([event], { color: true })).toBe('\u001b[33m⚠ careful\u001b[39m\n');
    expect(render([event])).toBe('⚠ careful\n');
  });

  test('durable tools: writing code is on the status line; each block names reuses, saves and failures', () => {
    const statuses: (string | undefined)[] = [];
    let text = '';
    const renderEvent = createEventRenderer({
      write: (chunk) => {
        text += chunk;
      },
      color: false,
      status: (status) => statuses.push(status),
    });
    const tool = { ...root, type: 'durable-tool', role: 'csv', method: 'sum' } as const;
    renderEvent({ ...root, type: 'step-start', iteration: 1 });
    renderEvent({
      ...root,
      type: 'usage',
      usage: { inputTokens: 10, outputTokens: 5 },
      modelId: 'scripted',
      modelCalls: 1,
    });
    renderEvent({ ...tool, activity: 'writing', source: 'generated' });
    renderEvent({
      ...tool,
      activity: 'failed',
      source: 'generated',
      error: { name: 'TypeError', message: 'rows\nis not iterable' },
      retry: true,
    });
    renderEvent({ ...tool, activity: 'writing', source: 'generated' });
    renderEvent({ ...tool, activity: 'saved', source: 'generated', generationId: 'gen-1' });
    for (let call = 0; call < 3; call += 1) {
      renderEvent({ ...tool, activity: 'reused', source: 'persisted', generationId: 'gen-1' });
    }
    renderEvent({
      ...root,
      type: 'execution',
      iteration: 1,
      index: 0,
      output: '',
      shownToModel: '',
      durationMs: 9,
    });
    // A block that finishes the call with SUBMIT has its tool lines before the answer line.
    renderEvent({ ...root, type: 'step-start', iteration: 2 });
    renderEvent({ ...tool, activity: 'reused', source: 'persisted', generationId: 'gen-1' });
    renderEvent({
      ...root,
      type: 'final',
      answer: 6,
      iterations: 2,
      source: 'submit-code',
      ...totals,
    });
    expect(statuses).toContain('tool csv.sum · writing code');
    expect(statuses.at(-1)).toBeUndefined();
    expect(text.split('\n').slice(0, 6)).toEqual([
      '● step 1',
      '  ✗ tool csv.sum failed: TypeError: rows is not iterable (the code was rewritten)',
      '  ⇢ tool csv.sum saved gen-1 (new code)',
      '  ⇢ tool csv.sum reused gen-1 ×3',
      '● step 2',
      '  ⇢ tool csv.sum reused gen-1',
    ]);
  });

  test('a fan-out is one counter on the status line and one line when its block ends', () => {
    const statuses: (string | undefined)[] = [];
    let text = '';
    const renderEvent = createEventRenderer({
      write: (chunk) => {
        text += chunk;
      },
      color: false,
      status: (status) => statuses.push(status),
    });
    renderEvent({ ...root, type: 'step-start', iteration: 2 });
    renderEvent({
      ...root,
      type: 'usage',
      usage: { inputTokens: 10, outputTokens: 5 },
      modelId: 'scripted',
      modelCalls: 1,
    });
    for (let index = 0; index < 40; index += 1) {
      renderEvent({ ...root, type: 'bridge-call', requestId: `r${index}`, name: 'llm_query' });
    }
    for (let index = 0; index < 40; index += 1) {
      renderEvent({
        ...root,
        type: 'bridge-result',
        requestId: `r${index}`,
        name: 'llm_query',
        ok: index % 10 !== 0,
        durationMs: 5,
        ...(index % 10 === 0 ? { error: `failure ${index}` } : {}),
      });
    }
    renderEvent({
      ...root,
      type: 'execution',
      iteration: 2,
      index: 0,
      output: '',
      shownToModel: '',
      durationMs: 9,
    });
    expect(statuses.slice(0, 3)).toEqual([
      'step 2 · waiting for the model',
      undefined,
      'llm_query 0/1',
    ]);
    expect(statuses).toContain('llm_query 0/40');
    expect(statuses).toContain('llm_query 23/40');
    expect(statuses.at(-1)).toBeUndefined();
    expect(text).toBe(
      [
        '● step 2',
        '  ⇢ 40 llm_query calls: 36 answered, 4 failed',
        '  ✗ llm_query failed: failure 0',
        '  ✗ llm_query failed: failure 10',
        '  ✗ llm_query failed: failure 20',
        '  ✗ … 1 more failed',
        '',
      ].join('\n'),
    );
  });

  test('the concurrency level: on the status line during a fan-out, a line when 429s lower it', () => {
    const statuses: (string | undefined)[] = [];
    let text = '';
    const renderEvent = createEventRenderer({
      write: (chunk) => {
        text += chunk;
      },
      color: false,
      status: (status) => statuses.push(status),
      maxConcurrency: 64,
    });
    renderEvent({ ...root, type: 'step-start', iteration: 1 });
    renderEvent({ ...root, type: 'bridge-call', requestId: 'r1', name: 'llm_query' });
    expect(statuses.at(-1)).toBe('llm_query 0/1 · 64 at once, max 64');
    renderEvent({
      ...root,
      type: 'concurrency',
      level: 32,
      cap: 64,
      reason: 'rate-limited',
      pausedMs: 2_000,
    });
    expect(statuses.at(-1)).toBe('llm_query 0/1 · 32 at once, max 64');
    renderEvent({ ...root, type: 'concurrency', level: 33, cap: 64, reason: 'raised' });
    expect(statuses.at(-1)).toBe('llm_query 0/1 · 33 at once, max 64');
    renderEvent({ ...root, type: 'concurrency', level: 64, cap: 64, reason: 'raised' });
    expect(text).toBe(
      [
        '● step 1',
        '⚠ rate-limited (429): 32 model calls at once now, max 64; none starts for 2.0 s',
        '  model calls at once back to 64',
        '',
      ].join('\n'),
    );
  });

  describe('streamText: prose line by line as it streams in', () => {
    const texts = [
      'One line only.',
      'Intro line.\n```repl\nconst x = 1;\nprint(x);\n```\nAfter the code.',
      'A\n\n\n\nB\n\n```js\ncode\n```\n\nC\n',
      '\n\nLeading blanks.\n````repl\n```\nstill code\n````\nEnd.',
      Array.from({ length: 9 }, (_, index) => `line ${index + 1}`).join('\n'),
      'Prose then an unclosed fence\n```repl\nconst y = 2;',
      '```repl\nonly(code)\n```',
    ];

    /** The text split into pieces of `size` characters, as text-delta events. */
    function deltas(text: string, size: number): RlmEvent[] {
      const events: RlmEvent[] = [];
      for (let start = 0; start < text.length; start += size) {
        events.push({
          ...root,
          type: 'text-delta',
          iteration: 1,
          text: text.slice(start, start + size),
        });
      }
      return events;
    }

    test.each(texts)('shows the same lines as the rendering at once: %j', (text) => {
      const atOnce = render([{ ...root, type: 'text', iteration: 1, text }]);
      for (const size of [1, 3, 7, 1000]) {
        const streamed = render(
          [...deltas(text, size), { ...root, type: 'text', iteration: 1, text }],
          { streamText: true },
        );
        expect(streamed).toBe(atOnce);
      }
    });

    test('lines appear before the step text is complete', () => {
      let written = '';
      const renderEvent = createEventRenderer({
        write: (chunk) => {
          written += chunk;
        },
        color: false,
        streamText: true,
      });
      renderEvent({ ...root, type: 'text-delta', iteration: 1, text: 'First line\nSecond ' });
      expect(written).toBe('  First line\n');
      renderEvent({ ...root, type: 'text-delta', iteration: 1, text: 'line\n' });
      expect(written).toBe('  First line\n  Second line\n');
    });

    test('without streamText, deltas show nothing and the text renders at once', () => {
      expect(render([...deltas('Hello\nthere', 2)])).toBe('');
    });
  });
});
