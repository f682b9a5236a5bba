import { describe, expect, test } from 'vitest';
import { formatAnswer, formatJsonReport } from './format-answer.js';

describe('formatAnswer', () => {
  test('strings print as they are, with one final newline', () => {
    expect(formatAnswer('42')).toBe('42\n');
    expect(formatAnswer('two\nlines\n')).toBe('two\nlines\n');
    expect(formatAnswer('')).toBe('\n');
  });

  test('anything else prints as indented JSON', () => {
    expect(formatAnswer({ a: [1, 2] })).toBe('{\n  "a": [\n    1,\n    2\n  ]\n}\n');
    expect(formatAnswer(7)).toBe('7\n');
    expect(formatAnswer(undefined)).toBe('null\n');
    expect(formatAnswer(new Map([['k', new Set([1n])]]))).toBe('{\n  "k": [\n    "1"\n  ]\n}\n');
  });

  test('a cycle prints as "[Circular]"; a value seen twice without a cycle prints twice', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    expect(formatAnswer(cyclic)).toBe('{\n  "name": "loop",\n  "self": "[Circular]"\n}\n');
    const shared = { x: 1 };
    expect(JSON.parse(formatAnswer([shared, shared]))).toEqual([{ x: 1 }, { x: 1 }]);
  });

  test('shared references 60 levels deep print once each, marked where they repeat', () => {
    let nested: unknown[] = [];
    for (let level = 0; level < 60; level += 1) nested = [nested, nested];
    const text = formatAnswer(nested);
    expect(text.length).toBeLessThan(20_000);
    expect(text).toContain('"[Shared: $[0][0]]"');
  });
});

describe('formatJsonReport', () => {
  const report = {
    answer: { ok: true },
    iterations: 2,
    depthReached: 0,
    usage: {
      inputTokens: 10,
      outputTokens: 3,
      cacheReadTokens: 4,
      cacheWriteTokens: 0,
      modelCalls: 2,
      costUsd: 0.0001,
    },
    callUsage: [],
    durationMs: 15,
  };

  test('one line of JSON', () => {
    expect(formatJsonReport(report)).toBe(
      '{"answer":{"ok":true},"iterations":2,"depthReached":0,"usage":{"inputTokens":10,"outputTokens":3,"cacheReadTokens":4,"cacheWriteTokens":0,"modelCalls":2,"costUsd":0.0001},"callUsage":[],"durationMs":15}\n',
    );
  });

  test('a cyclic answer still gives one line of JSON', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const line = formatJsonReport({ ...report, answer: cyclic });
    expect(JSON.parse(line).answer).toEqual({ self: '[Circular]' });
  });
});
