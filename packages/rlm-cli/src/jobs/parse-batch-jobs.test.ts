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
        key: 'b',
        query: 'Which?',
        contextFile: path.resolve('/data/set', 'docs/b.txt'),
        line: 3,
      },
      { id: 'c', key: 'c', query: 'Where?', contextFile: '/abs/c.json', line: 4 },
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
      '{"id": "1", "query": "a string id is the same id"}',
      '{"id": "two", "query": "ok"}',
    ].join('\n');
    const { jobs, problems } = parseBatchJobs(text, '/d');
    expect(jobs.map((job) => job.id)).toEqual([1, 'two']);
    expect(problems.map((problem) => problem.line)).toEqual([2, 3, 4, 5, 6, 7, 8]);
    expect(problems[0]!.message).toMatch(/^not valid JSON/);
    expect(problems[3]!.message).toMatch(/"query"/);
    expect(problems[5]!.message).toBe(
      'duplicate id 1 (first on line 1); give each line its own id',
    );
    expect(problems[6]!.message).toBe(
      'duplicate id "1" (first on line 1 as 1; ids are compared as strings); give each line its own id',
    );
  });

  test('a query over maxQueryChars is refused for its line; long ids are cut in messages', () => {
    const longId = 'i'.repeat(1_000_000);
    const text = [
      JSON.stringify({ id: 1, query: 'q'.repeat(101) }),
      JSON.stringify({ id: 2, query: 'q'.repeat(100) }),
      JSON.stringify({ id: longId, query: 'q'.repeat(5000) }),
      JSON.stringify({ id: longId, query: 'short' }),
      JSON.stringify({ id: longId, query: 'again' }),
    ].join('\n');
    const { jobs, problems } = parseBatchJobs(text, '/d', { maxQueryChars: 100 });
    expect(jobs.map((job) => job.key.length)).toEqual([1, 1_000_000]);
    expect(problems.map((problem) => problem.line)).toEqual([1, 3, 5]);
    expect(problems[0]!.message).toBe(
      'id 1: the query has 101 characters, over --max-query-chars 100; shorten it (put the material in its context) or raise --max-query-chars',
    );
    for (const problem of problems) expect(problem.message.length).toBeLessThan(250);
    expect(problems[1]!.message).toContain(
      '(1,000,000 characters): the query has 5,000 characters',
    );
    // The default: 100,000 characters.
    const big = parseBatchJobs(JSON.stringify({ id: 'x', query: 'q'.repeat(100_001) }), '/d');
    expect(big.problems).toHaveLength(1);
  });
});
