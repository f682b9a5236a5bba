import { describe, expect, test } from 'vitest';
import { inClass, makeCodeUnitPatterns, notInClass } from './code-unit-class.js';
import { makeRegExpToolkit } from './regexp-toolkit.js';

const codeUnitPatterns = makeCodeUnitPatterns(makeRegExpToolkit());

describe('makeCodeUnitPatterns', () => {
  test('recognises one class atom, alone or followed by +', () => {
    const recognised: [string, string, boolean][] = [
      ['\\s', '', false],
      ['\\s+', 'g', true],
      ['\\W+', 'i', true],
      ['[^a-z]+', 'i', true],
      ['[\\]]', '', false],
      ['[]', '', false],
      ['[^]+', '', true],
      ['.', 's', false],
      [' +', '', true],
      ['\\.+', 'y', true],
      ['\\n+', '', true],
      ['\\s+', 'u', true],
      ['\\w', 'iv', false],
    ];
    for (const [source, flags, repeated] of recognised) {
      expect(codeUnitPatterns(source, flags)?.repeated, `/${source}/${flags}`).toBe(repeated);
    }
  });

  test('leaves every other pattern to the RegExp engine', () => {
    const others: [string, string][] = [
      ['\\s*', ''],
      ['\\s+?', ''],
      ['\\s++', ''],
      ['\\s{1,}', ''],
      ['(\\s)', ''],
      ['[a-z]b', ''],
      ['\\s|,', ''],
      ['\\b', ''],
      ['\\1', ''],
      ['\\x41', ''],
      ['[abc', ''],
      ['+', ''],
      ['', ''],
      ['^', ''],
      // With u or v a class matches code points, some of them two code units long.
      ['\\S+', 'u'],
      ['\\W', 'v'],
      ['[a-z]+', 'u'],
      ['.', 'u'],
      ['a', 'u'],
    ];
    for (const [source, flags] of others) {
      expect(codeUnitPatterns(source, flags), `/${source}/${flags}`).toBeUndefined();
    }
  });

  test('puts a code unit in the class exactly when the RegExp matches it alone', () => {
    const cases: [string, string][] = [
      ['\\s', ''],
      ['\\W', 'i'],
      ['[^a-z]', 'i'],
      ['[\\s,.]', ''],
      ['.', ''],
      ['.', 's'],
      ['\\w', 'ui'],
      ['k', 'i'],
    ];
    for (const [source, flags] of cases) {
      const pattern = codeUnitPatterns(source, flags);
      if (pattern === undefined) throw new Error(`/${source}/${flags} was not recognised`);
      const regExp = new RegExp(`^${source}$`, flags);
      for (let code = 0; code <= 0xffff; code++) {
        const mark = code < 256 ? pattern.members.latin1[code] : pattern.members.wideMark(code);
        const expected = regExp.test(String.fromCharCode(code)) ? inClass : notInClass;
        if (mark !== expected) {
          throw new Error(
            `/${source}/${flags}: U+${code.toString(16)} is ${mark}, not ${expected}`,
          );
        }
      }
    }
  });
});
