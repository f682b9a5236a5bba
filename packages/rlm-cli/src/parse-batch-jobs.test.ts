import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseBatchJobs } from './parse-batch-jobs.js';

describe('parseBatchJobs', () => {
  test('reads ids, queries and contexts resolved against the file directory; skips blank lines', () => {
    const text = [
      '{"id": 1, "query": "How many?"}',
      '',
      '{"id": "b", "query": "Which?", "context": "docs/b.txt"}',
      '{"id": "c", "query": "Where?", "context": "/abs/c.json"}',
    ].join('\n');
    const { jobs, problems } = parseBatchJobs(`${text}\n`, '/data/set');
    expect(problems).toEqual([]);
    expect(jobs).toEqual([
      { id: 1, key: '1', query: 'How many?', contextFile: undefined, line: 1 },
      {
        id: 'b',
        key: '"b"',
        query: 'Which?',
        contextFile: path.resolve('/data/set', 'docs/b.txt'),
        line: 3,
      },
      { id: 'c', key: '"c"', query: 'Where?', contextFile: '/abs/c.json', line: 4 },
    ]);
  });

  test('every bad line is reported with its line number and skipped; the good ones are kept', () => {
    const text = [
      '{"id": 1, "query": "ok"}',
      '{"id": 2, "query": ',
      '[1, 2]',
      '{"query": "no id"}',
      '{"id": 5}',
      '{"id": 6, "query": "q", "context": 7}',
      '{"id": 1, "query": "again"}',
      '{"id": "1", "query": "a string id is another id"}',
    ].join('\n');
    const { jobs, problems } = parseBatchJobs(text, '/d');
    expect(jobs.map((job) => job.id)).toEqual([1, '1']);
    expect(problems.map((problem) => problem.line)).toEqual([2, 3, 4, 5, 6, 7]);
    expect(problems[0]!.message).toMatch(/^not valid JSON/);
    expect(problems[3]!.message).toMatch(/"query"/);
    expect(problems[5]!.message).toBe(
      'duplicate id 1 (first on line 1); give each line its own id',
    );
  });
});
