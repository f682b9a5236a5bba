import { describe, expect, test } from 'vitest';
import { locateJsonError } from './locate-json-error.js';

describe('locateJsonError', () => {
  test.each([
    '{}',
    '[]',
    ' {"a": [1, -2.5e+3, true, false, null, "x\\u00e9\\n"], "b": {}} ',
    '"just a string"',
    '0',
    '[[[[]]]]',
  ])('accepts %s', (text) => {
    expect(() => JSON.parse(text)).not.toThrow();
    expect(locateJsonError(text)).toBeUndefined();
  });

  test.each([
    ['', 1, 1, 'unexpected end of input'],
    ['{"a":}', 1, 6, 'unexpected "}"'],
    ['{"a": 1,\n  "b": 2,\n}', 3, 1, 'unexpected "}"'],
    ['[1, 2', 1, 6, 'unexpected end of input'],
    ['{"a" 1}', 1, 6, 'unexpected "1"'],
    ["{'a': 1}", 1, 2, 'unexpected "\'"'],
    ['[01]', 1, 3, 'unexpected "1"'],
    ['{"a": "b\\x"}', 1, 10, 'unexpected "x"'],
    ['"tab\there"', 1, 5, 'unexpected "\\t"'],
    ['{"a": 1} x', 1, 10, 'unexpected "x"'],
    ['[1,]', 1, 4, 'unexpected "]"'],
    ['[tru]', 1, 2, 'unexpected "t"'],
  ])('locates the error in %j', (text, line, column, reason) => {
    expect(() => JSON.parse(text)).toThrow();
    expect(locateJsonError(text)).toMatchObject({ line, column, reason });
  });

  test('deep nesting does not overflow the stack', () => {
    const text = `${'['.repeat(100_000)}${']'.repeat(99_999)}`;
    expect(locateJsonError(text)).toMatchObject({
      offset: text.length,
      reason: 'unexpected end of input',
    });
  });
});
