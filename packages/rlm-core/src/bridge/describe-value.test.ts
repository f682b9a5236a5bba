import { describe, expect, test } from 'vitest';
import { describeValue } from './describe-value.js';

describe('describeValue', () => {
  test.each([
    [undefined, 'undefined'],
    [null, 'null'],
    ['', 'an empty string'],
    [' \n\t', 'a string of only whitespace'],
    ['x', 'a string'],
    [1n, 'a bigint'],
    [1, 'a number'],
    [Symbol('s'), 'a symbol'],
    [() => 1, 'a function'],
    [[1], 'an array'],
    [{ a: 1 }, 'an object'],
  ])('%s is %s', (value, expected) => {
    expect(describeValue(value)).toBe(expected);
  });

  test('a revoked proxy is an object, without a throw', () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(describeValue(proxy)).toBe('an object');
  });
});
