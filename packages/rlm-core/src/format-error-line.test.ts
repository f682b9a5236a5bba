import { describe, expect, test } from 'vitest';
import { formatErrorLine } from './format-error-line.js';
import { SandboxError } from './errors/sandbox-error.js';

const hostile = {
  get message(): string {
    throw new Error('no');
  },
};

describe('formatErrorLine', () => {
  test.each([
    ['an Error', new Error('the store is full'), 'the store is full'],
    ['a package prefix', new Error('@rlm/artifacts: key "a" is damaged'), 'key "a" is damaged'],
    ['a nested package name', new Error('@rlm/sandbox-ses/worker:   died'), 'died'],
    ['a typed error', new SandboxError('@rlm/core: the worker exited'), 'the worker exited'],
    [
      'a prefix inside the text is kept',
      new Error('read: @rlm/trace: bad'),
      'read: @rlm/trace: bad',
    ],
    ['lines and tabs', new Error('@rlm/core: first\n\n  second\tthird  '), 'first second third'],
    ['a string', '@rlm/eval: no scorer', 'no scorer'],
    ['an error-like object', { message: '@rlm/server: busy' }, 'busy'],
    ['a number', 42, '42'],
    ['undefined', undefined, 'undefined'],
    ['null', null, 'null'],
    ['a symbol', Symbol('s'), 'Symbol(s)'],
    ['a throwing message getter', hostile, 'unknown error'],
    ['an object without toString', Object.create(null), 'unknown error'],
  ])('%s', (_name, error, expected) => {
    expect(formatErrorLine(error)).toBe(expected);
  });

  test('cuts a long line at maxLength, ellipsis included', () => {
    expect(formatErrorLine(new Error('x'.repeat(700)))).toBe(`${'x'.repeat(599)}…`);
    expect(formatErrorLine('abcdef', { maxLength: 4 })).toBe('abc…');
    expect(formatErrorLine('abcd', { maxLength: 4 })).toBe('abcd');
  });
});
