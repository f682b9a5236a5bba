import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { makeCodeUnitPatterns } from './code-unit-class.js';
import { makeFastMatch } from './fast-match.js';
import { makeFastSplit } from './fast-split.js';
import { makeRegExpToolkit } from './regexp-toolkit.js';
import { copyPattern } from './string-method-samples.js';

// Property tests of the one-scan split and match (`split-on-code-units.ts`) through the
// replacements model code gets, against V8's own methods on random text.

type Method = (this: unknown, ...args: unknown[]) => unknown;

const toolkit = makeRegExpToolkit();
const codeUnitPatterns = makeCodeUnitPatterns(toolkit);
const nativeSplit = String.prototype.split as Method;
const nativeMatch = String.prototype.match as Method;
const fastSplit = makeFastSplit(toolkit, codeUnitPatterns, String.prototype.split) as Method;
const fastMatch = makeFastMatch(toolkit, codeUnitPatterns, String.prototype.match) as Method;

/** The result (or the error's constructor name) and the pattern's `lastIndex` after the call. */
function outcome(method: Method, receiver: unknown, pattern: unknown, rest: unknown[]): unknown {
  const own = copyPattern(pattern);
  let result: unknown;
  try {
    const value = Reflect.apply(method, receiver, [own, ...rest]);
    result = { value: Array.isArray(value) ? [...value] : value };
  } catch (error) {
    result = { error: (error as Error).constructor.name };
  }
  return { result, lastIndex: own instanceof RegExp ? own.lastIndex : undefined };
}

function expectSame(
  native: Method,
  fast: Method,
  text: unknown,
  pattern: unknown,
  ...rest: unknown[]
) {
  expect(outcome(fast, text, pattern, rest)).toEqual(outcome(native, text, pattern, rest));
}

/** Code units chosen to sit on the edges of the classes: white space, word, case, surrogates. */
const units = [
  'a',
  'b',
  'Z',
  'k',
  '7',
  '_',
  ' ',
  ' ',
  '\t',
  '\n',
  '\r',
  '\v',
  '\u00a0',
  '\u1680',
  '\u2000',
  '\u200b',
  '\u2028',
  '\u3000',
  '\ufeff',
  ',',
  '.',
  '-',
  ']',
  '\\',
  '\u017f',
  '\u212a',
  'é',
  'ß',
  'İ',
  '😀',
  '\ud83d',
  '\ude00',
  '\u0000',
];

const texts = fc.oneof(
  fc.array(fc.constantFrom(...units), { maxLength: 40 }).map((parts) => parts.join('')),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ unit: 'binary-ascii', maxLength: 30 }),
);

/** One-class atoms, and a few look-alikes that are not one atom. */
const sources = [
  '\\s',
  '\\S',
  '\\d',
  '\\D',
  '\\w',
  '\\W',
  '[^a-z]',
  '[a-z]',
  '[\\s,.]',
  '[^\\w\\s]',
  '[]',
  '[^]',
  '[\\]]',
  '[\\b]',
  '[😀]',
  '[\\u00e9ß-]',
  '.',
  ' ',
  ',',
  'a',
  'k',
  'ſ',
  '\\.',
  '\\n',
  '\\\\',
  '😀',
  '\\ud83d',
  '[a-z]b',
  '\\s*',
  '\\s+?',
  '(\\s)',
  '\\s|,',
  '\\b',
];

const patterns = fc
  .record({
    source: fc.constantFrom(...sources),
    repeated: fc.boolean(),
    flags: fc.subarray(['d', 'g', 'i', 'm', 's', 'u', 'y']),
    lastIndex: fc.integer({ min: -2, max: 50 }),
  })
  .map(({ source, repeated, flags, lastIndex }) => {
    try {
      const regExp = new RegExp(repeated ? `${source}+` : source, flags.join(''));
      regExp.lastIndex = lastIndex;
      return regExp;
    } catch {
      return /\s+/;
    }
  });

const limits = fc.oneof(
  fc.constant(undefined),
  fc.integer({ min: 0, max: 6 }),
  fc.constantFrom(-1, 2 ** 32 + 1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '2', null),
);

describe('splitting and matching on one character class', () => {
  test('split gives what the built-in gives, and leaves lastIndex as it does', () => {
    fc.assert(
      fc.property(texts, patterns, limits, (text, pattern, limit) => {
        expectSame(nativeSplit, fastSplit, text, pattern, limit);
        expectSame(nativeSplit, fastSplit, text, pattern);
      }),
      { numRuns: 4000 },
    );
  });

  test('match gives what the built-in gives, and leaves lastIndex as it does', () => {
    fc.assert(
      fc.property(texts, patterns, (text, pattern) => {
        expectSame(nativeMatch, fastMatch, text, pattern);
      }),
      { numRuns: 4000 },
    );
  });

  test('the same, also with the v flag', () => {
    for (const source of ['\\s', '\\w', '\\d', '[\\w--\\d]', '\\p{L}']) {
      for (const text of ['a b\u3000c', ' 12 ab😀 ', '', '\ud83d \u017f']) {
        for (const flags of ['v', 'gv', 'iv', 'giv']) {
          expectSame(nativeSplit, fastSplit, text, new RegExp(`${source}+`, flags));
          expectSame(nativeSplit, fastSplit, text, new RegExp(source, flags));
          expectSame(nativeMatch, fastMatch, text, new RegExp(`${source}+`, flags));
        }
      }
    }
  });

  test('long texts: many repeated words, mostly distinct words, long words, near twins', () => {
    const random = fc.sample(fc.integer({ min: 0, max: 2 ** 31 }), { numRuns: 30_000, seed: 3 });
    const words = (count: number, pick: (index: number) => string) =>
      Array.from({ length: count }, (_, index) => pick(index));
    const separators = [' ', '  ', '\n', ' \t', '\u00a0', ', '];
    const join = (list: string[]) =>
      list.map((word, index) => `${word}${separators[(random[index] as number) % 6]}`).join('');
    const vocabulary = words(300, (index) => `w${index}${'é'.repeat(index % 3)}`);
    const cases = [
      join(words(20_000, (index) => vocabulary[(random[index] as number) % 300] as string)),
      join(words(20_000, (index) => `id${random[index]}`)),
      join(words(6_000, (index) => 'x'.repeat(40 + ((random[index] as number) % 30)))),
      ` ${join(words(9_000, (index) => (index < 5000 ? `a${index % 7}` : `b${index}`)))}`,
      // Words of up to 8 units that differ in one unit, at any place: interned by their units.
      join(
        words(20_000, (index) => {
          const word = 'abcdefgh'.slice(0, 1 + (index % 8));
          const pick = random[index] as number;
          const at = pick % word.length;
          return `${word.slice(0, at)}${'zéd'[(pick >>> 4) % 3]}${word.slice(at + 1)}`;
        }),
      ),
    ];
    for (const text of cases) {
      for (const pattern of [/\s+/, /\s/, /\W+/, /[^a-z]+/i, /[\s,]+/, / /]) {
        expectSame(nativeSplit, fastSplit, text, pattern);
        expectSame(nativeSplit, fastSplit, text, pattern, 7_000);
      }
      for (const pattern of [/\S+/g, /\w+/g, /[a-z]+/gi]) {
        expectSame(nativeMatch, fastMatch, text, pattern);
      }
    }
  });

  test('frozen, subclassed and overridden RegExps take the spec path', () => {
    for (const method of ['split', 'match'] as const) {
      const [native, fast] =
        method === 'split' ? [nativeSplit, fastSplit] : [nativeMatch, fastMatch];
      const frozen = () => Object.freeze(/\w+/g);
      expect(outcome(fast, 'a b', frozen(), [])).toEqual(outcome(native, 'a b', frozen(), []));
      class Upper extends RegExp {
        override exec(text: string) {
          const result = super.exec(text);
          if (result) result[0] = result[0].toUpperCase();
          return result;
        }
      }
      expectSame(native, fast, 'ab cd  ef', new Upper('\\s+', 'g'));
      const withOwn = /\s+/g;
      Object.defineProperty(withOwn, Symbol[method], {
        value: (text: string) => [`own ${method} of ${text}`],
      });
      expect(Reflect.apply(fast, 'a b', [withOwn])).toEqual([`own ${method} of a b`]);
    }
  });
});
