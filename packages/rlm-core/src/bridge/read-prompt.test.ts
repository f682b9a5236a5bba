import { describe, expect, test } from 'vitest';
import { readPrompt, readPrompts, toJsonText } from './read-prompt.js';

describe('readPrompt', () => {
  test('a string with text is the prompt; plain data is its JSON text', () => {
    expect(readPrompt('hello', 'llm_query(prompt)')).toBe('hello');
    expect(readPrompt({ a: [1, 2] }, 'llm_query(prompt)')).toBe('{"a":[1,2]}');
    expect(readPrompt(0, 'llm_query(prompt)')).toBe('0');
  });

  test.each([
    [undefined, 'got undefined'],
    [null, 'got null'],
    ['', 'got an empty string'],
    ['  \n', 'got a string of only whitespace'],
  ])('%j is refused: %s', (value, said) => {
    expect(() => readPrompt(value, 'llm_query(prompt)')).toThrow(
      `llm_query(prompt) needs a non-empty string; ${said}`,
    );
  });

  test('values without JSON text are refused with what to pass', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const throwing = {
      toJSON() {
        throw new Error('boom');
      },
    };
    for (const value of [1n, cyclic, throwing, () => 1, Symbol('s')]) {
      expect(() => readPrompt(value, 'llm_query(prompt)')).toThrow(
        /^llm_query\(prompt\) needs a string or plain JSON data; got an? \w+/,
      );
    }
  });
});

describe('readPrompts', () => {
  test('names the first bad prompt by its index', () => {
    expect(readPrompts(['a', { b: 1 }], 'llm_query_batched(prompts)')).toEqual(['a', '{"b":1}']);
    expect(() => readPrompts(['ok', undefined], 'llm_query_batched(prompts)')).toThrow(
      'llm_query_batched(prompts): prompt 1 needs a non-empty string; got undefined',
    );
  });

  test('data prompts share one size limit', () => {
    const big = { text: 'x'.repeat(1024 * 1024) };
    expect(() => readPrompts(Array(100).fill(big), 'llm_query_batched(prompts)')).toThrow(
      /^llm_query_batched\(prompts\) needs prompt strings or small plain JSON data: its JSON/,
    );
  });

  test('refuses what is not an array', () => {
    expect(() => readPrompts('one', 'llm_query_batched(prompts)')).toThrow(
      'llm_query_batched(prompts) needs an array of prompt strings; got a string',
    );
  });
});

describe('toJsonText', () => {
  test('a bigint names the problem, its path and the fix', () => {
    expect(() => toJsonText({ n: 1n }, 'sub_rlm(query, context)')).toThrow(
      'sub_rlm(query, context) needs a string or plain JSON data; got an object: $.n is a bigint, which JSON cannot hold',
    );
  });

  test('many references to one large object are refused before any text is built', () => {
    const big = { text: 'x'.repeat(1024 * 1024) };
    expect(() => toJsonText(Array(100).fill(big), 'sub_rlm(query, context)')).toThrow(
      /its JSON text would be over 67108864 characters/,
    );
  });
});
