import { describe, expect, test } from 'vitest';
import { makeCodeUnitPatterns } from './code-unit-class.js';
import { makeFastSplit } from './fast-split.js';
import { makeRegExpToolkit } from './regexp-toolkit.js';

const nativeSplit = String.prototype.split;
const toolkit = makeRegExpToolkit();
const fastSplit = makeFastSplit(toolkit, makeCodeUnitPatterns(toolkit), nativeSplit);

/** Runs `split` and captures either its result or the error's constructor name. */
function outcome(
  split: typeof String.prototype.split,
  receiver: unknown,
  args: unknown[],
): unknown {
  try {
    return { value: Reflect.apply(split, receiver, args) };
  } catch (error) {
    return { error: (error as Error).constructor.name };
  }
}

function expectSameAsNative(receiver: unknown, ...args: unknown[]): void {
  expect(outcome(fastSplit, receiver, args)).toEqual(outcome(nativeSplit, receiver, args));
}

const texts = [
  '',
  'a',
  'a,b,c',
  ',a,,b,',
  'one  two\tthree\nfour ',
  'aaa',
  'ab😀cd😀',
  '😀',
  '\ud83d',
  'x-y+z',
  'AbCaBc',
  ' lead and trail ',
  'a\u00a0b\u2028c\ufeffd\u180ee\u3000f',
  'a.b|c\nd\r\ne',
  'one\n\ntwo\n',
];

const regExps = [
  /\s+/,
  /,/,
  /(,)/,
  /(-)|(\+)/,
  /(?:)/,
  /a*/,
  /a*?/,
  /(a)*/,
  /\b/,
  /$/,
  /^/m,
  /,/y,
  /,/g,
  /,/gy,
  /(?<comma>,)/,
  /(?:)/u,
  /./u,
  /\p{L}/u,
  // biome-ignore lint/complexity/useRegexLiterals: the v flag is newer than the TypeScript target.
  new RegExp('[\\p{L}--[a-z]]', 'v'),
  /c/i,
  /,/d,
  /(?<=a)/,
  /😀/,
  /\ud83d/,
  /\s/,
  /\s+/u,
  /\s+/g,
  /\n/,
  /\n/y,
  /\./,
  /\|/u,
  /a/i,
  /-/i,
  /😀/u,
  /\ud83d/u,
  /\r\n/,
  /[,]/,
];

const limits = [undefined, 0, 1, 2, 3, -1, 2 ** 32 + 1, 1.5, '2', null, Number.NaN, Infinity];

describe('makeFastSplit', () => {
  test('has the shape of a built-in method', () => {
    expect(fastSplit.name).toBe('split');
    expect(fastSplit.length).toBe(2);
    expect(Object.hasOwn(fastSplit, 'prototype')).toBe(false);
    expect(() => Reflect.construct(fastSplit, [])).toThrow(TypeError);
  });

  test('matches native split for RegExp separators, limits, captures and empty matches', () => {
    for (const text of texts) {
      for (const separator of regExps) {
        for (const limit of limits) {
          expectSameAsNative(text, separator, limit);
        }
        expectSameAsNative(text, separator);
      }
    }
  });

  test('matches native split for string and other separators', () => {
    const separators = [',', '', 'ab', 'a', '😀', undefined, null, 1, { toString: () => ',' }];
    for (const text of [...texts, 'a1b1c', 'nullxnull', 'undefined,undefined']) {
      for (const separator of separators) {
        for (const limit of limits) {
          expectSameAsNative(text, separator, limit);
        }
      }
    }
  });

  test('coerces the receiver like native split', () => {
    expectSameAsNative(12345, '3');
    expectSameAsNative(new String('a,b'), /,/);
    expectSameAsNative({ toString: () => 'x,y' }, ',');
    expectSameAsNative(null, ',');
    expectSameAsNative(undefined, /,/);
  });

  test('throws like native split for bad arguments', () => {
    expectSameAsNative('a,b', Symbol('s'));
    expectSameAsNative('a,b', ',', 1n);
    expectSameAsNative('a,b', { [Symbol.split]: 42 });
    expectSameAsNative({ toString: () => Symbol('r') as unknown as string }, ',');
  });

  test('performs conversions in the order of the spec', () => {
    const record = (log: string[]) => ({
      receiver: {
        toString: () => {
          log.push('receiver');
          return 'a,b,c';
        },
      },
      separator: {
        toString: () => {
          log.push('separator');
          return ',';
        },
      },
      limit: {
        valueOf: () => {
          log.push('limit');
          return 2;
        },
      },
    });
    const nativeLog: string[] = [];
    const nativeArgs = record(nativeLog);
    const fastLog: string[] = [];
    const fastArgs = record(fastLog);
    expect(
      Reflect.apply(fastSplit, fastArgs.receiver, [fastArgs.separator, fastArgs.limit]),
    ).toEqual(
      Reflect.apply(nativeSplit, nativeArgs.receiver, [nativeArgs.separator, nativeArgs.limit]),
    );
    expect(fastLog).toEqual(nativeLog);
  });

  test('delegates to a custom Symbol.split', () => {
    const separator = {
      [Symbol.split](text: string, limit: unknown) {
        return ['custom', text, limit, this === separator];
      },
    };
    expect(Reflect.apply(fastSplit, 'abc', [separator, 7])).toEqual(['custom', 'abc', 7, true]);
  });

  test('honours RegExp subclasses and own exec overrides', () => {
    class Tagged extends RegExp {
      override exec(text: string) {
        const match = super.exec(text);
        if (match) match[0] = `${match[0]}`;
        return match;
      }
    }
    expectSameAsNative('a,b,c', new Tagged(','));
    const run = (split: typeof String.prototype.split) => {
      const log: string[] = [];
      const separator = /,/;
      // The spec constructs its splitter through the species constructor: observable.
      Object.defineProperty(separator, 'constructor', {
        value: {
          [Symbol.species]: function Species(source: RegExp, flags: string) {
            log.push(`species ${flags}`);
            return new RegExp(source, flags);
          },
        },
      });
      return { value: Reflect.apply(split, 'a,b', [separator]), log };
    };
    expect(run(fastSplit)).toEqual(run(nativeSplit));
    expect(run(fastSplit).log).toEqual(['species y']);
  });

  test('leaves the separator lastIndex untouched', () => {
    const separator = /,/g;
    separator.lastIndex = 3;
    Reflect.apply(fastSplit, 'a,b,c,d', [separator]);
    expect(separator.lastIndex).toBe(3);
  });

  test('splits on white space exactly where \\s matches', () => {
    const spaces: string[] = [];
    for (let code = 0; code <= 0xffff; code++) {
      const character = String.fromCharCode(code);
      if (/\s/.test(character)) spaces.push(character);
    }
    const text = `x${spaces.join('y')}z${spaces.join('')}w`;
    expectSameAsNative(text, /\s/);
    expectSameAsNative(text, /\s+/);
    let others = '';
    for (let code = 0; code <= 0xffff; code++) {
      if (!spaces.includes(String.fromCharCode(code))) others += String.fromCharCode(code);
    }
    expect(Reflect.apply(fastSplit, others, [/\s+/])).toEqual([others]);
  });

  test('splits a long text like native split', () => {
    const text = Array.from({ length: 5000 }, (_, i) => `w${i % 17}`).join(' \n\t');
    expectSameAsNative(text, /\s+/);
    expectSameAsNative(text, /(\s)/, 999);
  });
});
