import { describe, expect, test } from 'vitest';
import { UnknownScorerError } from '../errors/unknown-scorer-error.js';
import { type BuiltInScorerSettings, createBuiltInScorer } from './built-in-scorers.js';
import { parseNumberTolerance } from './number-tolerance.js';

async function score(
  name: string,
  answer: unknown,
  expected: unknown,
  settings: BuiltInScorerSettings = {},
) {
  return createBuiltInScorer(name, settings).score({ id: 1, query: 'q', answer, expected });
}

describe('built-in scorers', () => {
  test('exact compares normalized text: case, spaces, quotes and a final period do not count', async () => {
    expect((await score('exact', '  The  Eiffel Tower. ', 'the eiffel tower')).score).toBe(1);
    expect((await score('exact', '"Paris"', 'paris')).score).toBe(1);
    expect((await score('exact', 'Paris, France', 'Paris')).score).toBe(0);
    expect((await score('exact', 42, '42')).score).toBe(1);
    // A list of accepted answers: the best counts.
    expect((await score('exact', 'NYC', ['New York', 'nyc'])).score).toBe(1);
  });

  test('contains looks for the expected text inside the answer', async () => {
    expect((await score('contains', 'The code is ALPHA-7, I think.', 'alpha-7')).score).toBe(1);
    expect((await score('contains', 'The code is ALPHA-8', 'alpha-7')).score).toBe(0);
  });

  test('number reads the last number, thousands separators included, within the tolerance', async () => {
    expect((await score('number', 'In 2023 there were 1,250 of them', 1250)).score).toBe(1);
    expect((await score('number', 'about 3.14159', '3.14')).score).toBe(0);
    const loose = { tolerance: parseNumberTolerance('0.01') };
    expect((await score('number', 'about 3.14159', '3.14', loose)).score).toBe(1);
    const relative = { tolerance: parseNumberTolerance('1%') };
    expect((await score('number', '990', 1000, relative)).score).toBe(1);
    expect((await score('number', '989', 1000, relative)).score).toBe(0);
    expect(await score('number', 'no idea', 5)).toEqual({
      score: 0,
      note: 'no number in the answer',
    });
    const bad = await score('number', '5', 'five');
    expect(bad.score).toBeNull();
    expect(bad.failure?.kind).toBe('invalid');
  });

  test('f1 is SQuAD token overlap', async () => {
    // answer tokens: [big, red, barn], expected [red, barn, door]: P = R = 2/3.
    expect((await score('f1', 'the big red barn', 'red barn door')).score).toBeCloseTo(2 / 3, 6);
    expect((await score('f1', 'Red barn!', 'a red barn')).score).toBe(1);
    expect((await score('f1', 'blue', 'red')).score).toBe(0);
  });

  test('regex takes a pattern or /pattern/flags; a bad pattern marks the item', async () => {
    expect((await score('regex', 'Order #A-1234 shipped', 'A-\\d{4}')).score).toBe(1);
    expect((await score('regex', 'order a-1234', '/A-\\d{4}/i')).score).toBe(1);
    expect((await score('regex', 'order a-1234', '/A-\\d{4}/')).score).toBe(0);
    const bad = await score('regex', 'x', '(unclosed');
    expect(bad.score).toBeNull();
    expect(bad.failure?.message).toContain('is not a valid regular expression');
  });

  test('json compares values (key order aside), or a subset, from text or structured answers', async () => {
    const expected = { name: 'Ada', tags: ['a', 'b'] };
    expect((await score('json', '{"tags":["a","b"],"name":"Ada"}', expected)).score).toBe(1);
    expect((await score('json', { name: 'Ada', tags: ['a', 'b'] }, expected)).score).toBe(1);
    const fenced = 'Here:\n```json\n{"name": "Ada", "tags": ["a", "b"], "age": 36}\n```';
    expect((await score('json', fenced, expected)).score).toBe(0);
    expect((await score('json', fenced, expected, { jsonMatch: 'subset' })).score).toBe(1);
    expect((await score('json', '{"name": "Ada", "tags": ["b", "a"]}', expected)).score).toBe(0);
    expect(await score('json', 'not json at all', expected)).toEqual({
      score: 0,
      note: 'the answer is not JSON',
    });
  });

  test('an unknown name is a typed error naming the known ones', () => {
    let caught: unknown;
    try {
      createBuiltInScorer('exactly');
    } catch (error) {
      caught = error;
    }
    expect(UnknownScorerError.isInstance(caught)).toBe(true);
    expect((caught as Error).message).toBe(
      '@rlm/eval: no scorer "exactly"; use one of exact, contains, number, f1, regex, json, judge, or the path of a module (./my-scorer.mjs)',
    );
  });

  test('a tolerance that is not a number is refused', () => {
    expect(() => parseNumberTolerance('a bit')).toThrow(/a tolerance is a number such as 0.5/);
    expect(() => parseNumberTolerance('-1')).toThrow(/a tolerance/);
  });
});
