import { describe, expect, test } from 'vitest';
import { readCallOptions } from './read-call-options.js';

describe('readCallOptions', () => {
  test('absent options, or an object with model', () => {
    expect(readCallOptions(undefined, 'llm_query(prompt, options)')).toEqual({});
    expect(readCallOptions(null, 'llm_query(prompt, options)')).toEqual({});
    expect(readCallOptions({}, 'llm_query(prompt, options)')).toEqual({});
    expect(readCallOptions({ model: 'cheap' }, 'llm_query(prompt, options)')).toEqual({
      model: 'cheap',
    });
  });

  test('anything else is refused with what to pass', () => {
    expect(() => readCallOptions('cheap', 'llm_query(prompt, options)')).toThrow(
      'llm_query(prompt, options) takes options as an object such as { model: "id" }; got a string',
    );
    expect(() => readCallOptions([1], 'llm_query(prompt, options)')).toThrow(/got an array$/);
    expect(() =>
      readCallOptions({ model: 'a', temperature: 0 }, 'sub_rlm(query, context, options)'),
    ).toThrow(
      'sub_rlm(query, context, options) takes only the option model (e.g. { model: "id" }); got "temperature"',
    );
  });
});
