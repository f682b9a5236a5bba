import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseEvalDataset } from './parse-eval-dataset.js';

const base = path.resolve('/data/set');

describe('parseEvalDataset', () => {
  test('reads items with a file, a directory or no context; expected may be any JSON', () => {
    const text = [
      JSON.stringify({ id: 1, query: 'Q1?', context: 'a.txt', expected: 'x' }),
      '',
      JSON.stringify({ id: 'two', query: 'Q2?', context_dir: 'docs', expected: { n: 2 } }),
      JSON.stringify({ id: 3, query: 'Q3?', expected: null }),
    ].join('\n');
    const { items, problems } = parseEvalDataset(text, base);
    expect(problems).toEqual([]);
    expect(items).toEqual([
      {
        id: 1,
        key: '1',
        query: 'Q1?',
        context: { kind: 'file', path: path.join(base, 'a.txt') },
        expected: 'x',
        line: 1,
      },
      {
        id: 'two',
        key: '"two"',
        query: 'Q2?',
        context: { kind: 'directory', path: path.join(base, 'docs') },
        expected: { n: 2 },
        line: 3,
      },
      { id: 3, key: '3', query: 'Q3?', expected: null, line: 4 },
    ]);
  });

  test('every bad line is reported with its number and a fix; the good ones are read', () => {
    const text = [
      '{"id": 1, "query": "Q?"',
      '[1, 2]',
      JSON.stringify({ query: 'Q?', expected: 1 }),
      JSON.stringify({ id: 4, query: ' ', expected: 1 }),
      JSON.stringify({ id: 5, query: 'Q5?' }),
      JSON.stringify({ id: 6, query: 'Q6?', expected: 1, context: 7 }),
      JSON.stringify({ id: 7, query: 'Q7?', expected: 1, context: 'a', context_dir: 'b' }),
      JSON.stringify({ id: 8, query: 'Q8?', expected: 1 }),
      JSON.stringify({ id: 8, query: 'again', expected: 2 }),
    ].join('\n');
    const { items, problems } = parseEvalDataset(text, base);
    expect(items.map((item) => item.id)).toEqual([8]);
    expect(problems).toEqual([
      { line: 1, message: expect.stringMatching(/^not valid JSON; /) },
      { line: 2, message: expect.stringMatching(/^not a JSON object; /) },
      { line: 3, message: expect.stringContaining('needs an "id"') },
      { line: 4, message: 'id 4 needs a "query" that is a non-empty string' },
      {
        line: 5,
        message: 'id 5 has no "expected": add the answer it should get, e.g. "expected": "42"',
      },
      { line: 6, message: 'id 6: "context" must be a path (a non-empty string)' },
      { line: 7, message: 'id 7 has both "context" and "context_dir"; give one of them' },
      {
        line: 9,
        message: 'duplicate id 8 (first on line 8); give each line its own id',
      },
    ]);
  });
});
