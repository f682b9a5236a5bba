import { describe, expect, test } from 'vitest';
import { makeCodeUnitPatterns } from './code-unit-class.js';
import { makeFastMatch } from './fast-match.js';
import { makeRegExpToolkit } from './regexp-toolkit.js';
import { copyPattern, sampleTexts } from './string-method-samples.js';

type Match = (this: unknown, regexp: unknown) => unknown;

const nativeMatch = String.prototype.match as Match;
const toolkit = makeRegExpToolkit();
const fastMatch = makeFastMatch(
  toolkit,
  makeCodeUnitPatterns(toolkit),
  String.prototype.match,
) as Match;

function outcome(method: Match, receiver: unknown, args: unknown[]): unknown {
  try {
    const value = Reflect.apply(method, receiver, args);
    // Match arrays carry index, input, groups and indices: compare them too.
    return { value: Array.isArray(value) ? { ...value, length: value.length } : value };
  } catch (error) {
    return { error: (error as Error).constructor.name };
  }
}

function expectSameAsNative(receiver: unknown, pattern: unknown): void {
  const nativePattern = copyPattern(pattern);
  const fastPattern = copyPattern(pattern);
  expect(outcome(fastMatch, receiver, [fastPattern])).toEqual(
    outcome(nativeMatch, receiver, [nativePattern]),
  );
  if (nativePattern instanceof RegExp) {
    expect((fastPattern as RegExp).lastIndex).toBe(nativePattern.lastIndex);
  }
}

const patterns: unknown[] = [
  /a/,
  /a/g,
  /a/y,
  /a/gy,
  /A/gi,
  /(a)|(b)/,
  /(a)|(b)/g,
  /(?<digits>\d+)/,
  /(?<digits>\d+)/d,
  /(?<digits>\d+)/g,
  /(?:)/g,
  /(?:)/gu,
  /x*/g,
  /\d*/gy,
  /./gu,
  /$/g,
  /\b/g,
  /😀/g,
  /(?<=a)/g,
  'a',
  '.',
  '',
  '(',
  null,
  undefined,
  1,
  { toString: () => 'b' },
];

describe('makeFastMatch', () => {
  test('has the shape of a built-in method', () => {
    expect(fastMatch.name).toBe('match');
    expect(fastMatch.length).toBe(1);
    expect(Object.hasOwn(fastMatch, 'prototype')).toBe(false);
    expect(() => Reflect.construct(fastMatch, [])).toThrow(TypeError);
  });

  test('matches native for every pattern, with its result object and lastIndex', () => {
    for (const text of sampleTexts) {
      for (const pattern of patterns) expectSameAsNative(text, pattern);
    }
  });

  test('reads and writes lastIndex like native, and throws where the spec does', () => {
    for (const flags of ['g', 'y', 'gy', '']) {
      for (const lastIndex of [0, 1, 3, 9, -1, 2 ** 40]) {
        const pattern = new RegExp('b', flags);
        pattern.lastIndex = lastIndex;
        expectSameAsNative('abcb', pattern);
      }
      const nativePattern = Object.freeze(new RegExp('b', flags));
      const fastPattern = Object.freeze(new RegExp('b', flags));
      expect(outcome(fastMatch, 'abc', [fastPattern])).toEqual(
        outcome(nativeMatch, 'abc', [nativePattern]),
      );
    }
  });

  test('delegates to custom Symbol.match, subclasses, own properties and proxies', () => {
    class Loud extends RegExp {
      override exec(text: string) {
        const result = super.exec(text);
        if (result) result[0] = result[0].toUpperCase();
        return result;
      }
    }
    const withOwnExec = /a/g;
    Object.defineProperty(withOwnExec, 'exec', { value: () => null });
    for (const pattern of [new Loud('a', 'g'), withOwnExec]) expectSameAsNative('banana', pattern);
    const custom = { [Symbol.match]: (text: string) => [`custom ${text}`] };
    expect(Reflect.apply(fastMatch, 'abc', [custom])).toEqual(['custom abc']);
    const run = (method: Match) => {
      const log: string[] = [];
      const proxy = new Proxy(/a/g, {
        get(target, key) {
          log.push(`get ${String(key)}`);
          const value = Reflect.get(target, key, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      return { value: Reflect.apply(method, 'banana', [proxy]), log };
    };
    expect(run(fastMatch)).toEqual(run(nativeMatch));
  });

  test('throws like native for bad receivers and matchers', () => {
    expectSameAsNative(null, /a/);
    expectSameAsNative(undefined, 'a');
    expect(outcome(fastMatch, 'abc', [{ [Symbol.match]: 42 }])).toEqual(
      outcome(nativeMatch, 'abc', [{ [Symbol.match]: 42 }]),
    );
    expectSameAsNative({ toString: () => Symbol('s') }, /a/);
  });

  test('matches over a long text like native', () => {
    const text = Array.from({ length: 5000 }, (_, i) => `w${i % 17} 20${i % 100}-0${i % 9}`).join(
      ' ',
    );
    expectSameAsNative(text, /\d{4}-\d{2}/g);
    expectSameAsNative(text, /\w+/g);
  });
});
