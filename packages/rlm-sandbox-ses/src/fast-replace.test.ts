import { describe, expect, test } from 'vitest';
import { makeFastReplace } from './fast-replace.js';
import { makeRegExpToolkit } from './regexp-toolkit.js';
import { copyPattern, sampleTexts } from './string-method-samples.js';

type Replace = (this: unknown, searchValue: unknown, replaceValue: unknown) => string;

const native = {
  replace: String.prototype.replace as Replace,
  replaceAll: String.prototype.replaceAll as Replace,
};
const fast = makeFastReplace(
  makeRegExpToolkit(),
  String.prototype.replace,
  String.prototype.replaceAll,
);

/** Runs a method and captures its result or its error's constructor name and message. */
function outcome(method: Replace, receiver: unknown, args: unknown[]): unknown {
  try {
    return { value: Reflect.apply(method, receiver, args) };
  } catch (error) {
    return { error: (error as Error).constructor.name };
  }
}

function expectSameAsNative(
  name: 'replace' | 'replaceAll',
  receiver: unknown,
  searchValue: unknown,
  replaceValue: unknown,
): void {
  const nativeSearch = copyPattern(searchValue);
  const fastSearch = copyPattern(searchValue);
  const nativeCalls: unknown[][] = [];
  const fastCalls: unknown[][] = [];
  const replacer = (calls: unknown[][]) =>
    typeof replaceValue === 'function'
      ? (...args: unknown[]) => {
          calls.push(args);
          return Reflect.apply(replaceValue, undefined, args);
        }
      : replaceValue;
  const expected = outcome(native[name], receiver, [nativeSearch, replacer(nativeCalls)]);
  const actual = outcome(fast[name], receiver, [fastSearch, replacer(fastCalls)]);
  expect(actual).toEqual(expected);
  expect(fastCalls).toEqual(nativeCalls);
  if (nativeSearch instanceof RegExp) {
    expect((fastSearch as RegExp).lastIndex).toBe(nativeSearch.lastIndex);
  }
}

const patterns: unknown[] = [
  /a/,
  /a/g,
  /a/y,
  /a/gy,
  /a/gi,
  /(a)|(b)/g,
  /(?<digits>\d+)/g,
  /(?<digits>\d+)|(?<letter>[a-z])/g,
  /(?:)/g,
  /(?:)/gu,
  /x*/g,
  /\d*/gy,
  /./gu,
  /$/g,
  /\b/g,
  /(\d)(\d)?/g,
  /😀/g,
  /(?<=a)/g,
  /-/d,
  /-/dg,
  'a',
  '-',
  '',
  '$',
  null,
  undefined,
  1,
  { toString: () => 'b' },
];

const replacements: unknown[] = [
  'R',
  '',
  '$',
  '$$',
  '$&',
  '$`',
  "$'",
  '$0',
  '$1',
  '$2',
  '$01',
  '$10',
  '$00',
  '$99',
  '[$1|$2]',
  '$<digits>',
  '$<letter>$<digits>',
  '$<missing>',
  '$<unclosed',
  'x$',
  '$&$&',
  undefined,
  null,
  42,
  (...args: unknown[]) => JSON.stringify(args),
  () => undefined,
  (match: string) => match.toUpperCase(),
];

describe('makeFastReplace', () => {
  test('have the shape of built-in methods', () => {
    for (const [name, method] of Object.entries(fast)) {
      expect(method.name).toBe(name);
      expect(method.length).toBe(2);
      expect(Object.hasOwn(method, 'prototype')).toBe(false);
      expect(() => Reflect.construct(method, [])).toThrow(TypeError);
    }
  });

  test('replace matches native for every pattern, template and replacer', () => {
    for (const text of sampleTexts) {
      for (const pattern of patterns) {
        for (const replacement of replacements) {
          expectSameAsNative('replace', text, pattern, replacement);
        }
      }
    }
  });

  test('replaceAll matches native, including its TypeError for a non-global RegExp', () => {
    for (const text of sampleTexts) {
      for (const pattern of patterns) {
        for (const replacement of replacements) {
          expectSameAsNative('replaceAll', text, pattern, replacement);
        }
      }
    }
  });

  test('sets lastIndex like native, and throws where the spec writes a frozen lastIndex', () => {
    for (const name of ['replace', 'replaceAll'] as const) {
      for (const flags of ['g', 'y', 'gy', '']) {
        for (const lastIndex of [0, 1, 2, 5, -1, 1.5, 2 ** 40]) {
          const pattern = new RegExp('b', flags);
          pattern.lastIndex = lastIndex;
          expectSameAsNative(name, 'abcb', pattern, 'X');
        }
      }
    }
    for (const flags of ['g', 'y', '']) {
      const nativePattern = Object.freeze(new RegExp('b', flags));
      const fastPattern = Object.freeze(new RegExp('b', flags));
      expect(outcome(fast.replace, 'abc', [fastPattern, 'X'])).toEqual(
        outcome(native.replace, 'abc', [nativePattern, 'X']),
      );
    }
  });

  test('calls the replacer after every match is found, with lastIndex already reset', () => {
    const run = (method: Replace) => {
      const pattern = /b/g;
      const seen: number[] = [];
      const value = Reflect.apply(method, 'abcbdb', [
        pattern,
        () => {
          seen.push(pattern.lastIndex);
          pattern.lastIndex = 1;
          return '_';
        },
      ]);
      return { value, seen, lastIndex: pattern.lastIndex };
    };
    expect(run(fast.replace)).toEqual(run(native.replace));
  });

  test('performs observable steps in the order of the spec', () => {
    const run = (method: Replace) => {
      const log: string[] = [];
      const logged = (name: string, text: string) => ({
        toString: () => {
          log.push(name);
          return text;
        },
      });
      const receiver = logged('receiver', 'a,b');
      const search = logged('search', ',');
      const replacement = logged('replacement', ';');
      return { value: Reflect.apply(method, receiver, [search, replacement]), log };
    };
    expect(run(fast.replace)).toEqual(run(native.replace));
    expect(run(fast.replaceAll)).toEqual(run(native.replaceAll));
  });

  test('delegates to custom Symbol.replace, subclasses, own properties and proxies', () => {
    class Loud extends RegExp {
      override exec(text: string) {
        const result = super.exec(text);
        if (result) result[0] = result[0].toUpperCase();
        return result;
      }
    }
    const withOwnExec = /a/g;
    Object.defineProperty(withOwnExec, 'exec', { value: () => null });
    const withOwnFlags = /a/;
    Object.defineProperty(withOwnFlags, 'flags', { value: 'g' });
    const withObjectLastIndex = /a/y;
    withObjectLastIndex.lastIndex = { valueOf: () => 1 } as unknown as number;
    for (const pattern of [new Loud('a', 'g'), withOwnExec, withOwnFlags, withObjectLastIndex]) {
      expectSameAsNative('replace', 'banana', pattern, '[$&]');
    }
    const custom = {
      [Symbol.replace](text: string, replacement: unknown) {
        return `custom ${text} ${String(replacement)} ${this === custom}`;
      },
    };
    expect(Reflect.apply(fast.replace, 'abc', [custom, 'r'])).toBe('custom abc r true');
    const run = (method: Replace) => {
      const log: string[] = [];
      const proxy = new Proxy(/a/g, {
        get(target, key) {
          log.push(`get ${String(key)}`);
          const value = Reflect.get(target, key, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
        set(target, key, value) {
          log.push(`set ${String(key)}`);
          return Reflect.set(target, key, value, target);
        },
      });
      return { value: Reflect.apply(method, 'banana', [proxy, 'o']), log };
    };
    expect(run(fast.replace)).toEqual(run(native.replace));
  });

  test('throws like native for bad receivers and replacers', () => {
    expectSameAsNative('replace', null, /a/, 'b');
    expectSameAsNative('replace', undefined, 'a', 'b');
    expectSameAsNative('replace', 'abc', { [Symbol.replace]: 42 }, 'b');
    expectSameAsNative('replace', 'abc', /b/, Symbol('r'));
    expectSameAsNative('replace', 'abc', /b/, () => Symbol('r'));
    expectSameAsNative('replaceAll', 'abc', { [Symbol.match]: true, flags: undefined }, 'b');
    expectSameAsNative('replaceAll', 'abc', { [Symbol.match]: true, flags: 'i' }, 'b');
  });

  test('replaces over a long text like native', () => {
    const text = Array.from({ length: 5000 }, (_, i) => `w${i % 17} 20${i % 100}-0${i % 9}`).join(
      ' \n\t',
    );
    expectSameAsNative('replace', text, /\s+/g, ' ');
    expectSameAsNative('replace', text, /(\d+)-(\d+)/g, '$2/$1');
    expectSameAsNative(
      'replaceAll',
      text,
      /w(\d+)/g,
      (match: string, digits: string) => `${match}:${digits.length}`,
    );
  });
});
