import { describe, expect, test } from 'vitest';
import { makeRegExpToolkit } from './regexp-toolkit.js';

const toolkit = makeRegExpToolkit();

describe('makeRegExpToolkit', () => {
  test('isPristine accepts plain RegExps, literal or constructed', () => {
    expect(toolkit.isPristine(/a/g)).toBe(true);
    expect(toolkit.isPristine(/a/iu)).toBe(true);
    expect(toolkit.isPristine(Object.freeze(/a/))).toBe(true);
  });

  test('isPristine refuses whatever could observe or change the spec steps', () => {
    class Sub extends RegExp {}
    const withOwn = /a/;
    Object.defineProperty(withOwn, 'global', { value: true });
    const withObjectLastIndex = /a/;
    withObjectLastIndex.lastIndex = {} as number;
    let trapped = false;
    const proxy = new Proxy(/a/, {
      getPrototypeOf: (target) => {
        trapped = true;
        return Reflect.getPrototypeOf(target);
      },
      ownKeys: (target) => {
        trapped = true;
        return Reflect.ownKeys(target);
      },
    });
    for (const value of [new Sub('a'), withOwn, withObjectLastIndex, proxy, RegExp.prototype]) {
      expect(toolkit.isPristine(value)).toBe(false);
    }
    expect(trapped).toBe(false);
  });

  test('matcher caches private copies by source and flags', () => {
    const first = toolkit.matcher('a+', 'g');
    expect(toolkit.matcher('a+', 'g')).toBe(first);
    expect(toolkit.matcher('a+', 'gi')).not.toBe(first);
    expect(first.flags).toBe('g');
  });

  test('advance steps over surrogate pairs only in unicode mode', () => {
    expect(toolkit.advance('😀x', 0, true)).toBe(2);
    expect(toolkit.advance('😀x', 0, false)).toBe(1);
    expect(toolkit.advance('\ud83dx', 0, true)).toBe(1);
    expect(toolkit.advance('a', 0, true)).toBe(1);
  });
});
