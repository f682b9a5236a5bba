import { describe, expect, test } from 'vitest';
import { formatValue } from './format-value.js';

const format = (value: unknown, maxLength = 1000) => formatValue(value, { maxLength });

describe('formatValue', () => {
  test('shows top-level strings as they are, quoted inside containers', () => {
    expect(format('hello\nworld')).toBe('hello\nworld');
    expect(formatValue('x', { maxLength: 10, quoteStrings: true })).toBe('"x"');
    expect(format(['a', 'b"c'])).toBe('["a", "b\\"c"]');
  });

  test('formats primitives like JavaScript', () => {
    expect(format(42)).toBe('42');
    expect(format(-0)).toBe('-0');
    expect(format(10n)).toBe('10n');
    expect(format(true)).toBe('true');
    expect(format(undefined)).toBe('undefined');
    expect(format(null)).toBe('null');
    expect(format(Symbol('s'))).toBe('Symbol(s)');
    expect(format(Number.NaN)).toBe('NaN');
  });

  test('formats objects JSON-ish on one line', () => {
    expect(format({ a: 1, 'b c': [1, { d: null }] })).toBe('{ a: 1, "b c": [1, { d: null }] }');
    expect(format({})).toBe('{}');
    expect(format(new Map([['k', 1]]))).toBe('Map(1) {"k" => 1}');
    expect(format(new Set([1, 2]))).toBe('Set(2) {1, 2}');
    expect(format(new Date(0))).toBe('1970-01-01T00:00:00.000Z');
    expect(format(/a+/gi)).toBe('/a+/gi');
    expect(format(new TypeError('bad'))).toBe('[TypeError: bad]');
    expect(format(Promise.resolve(1))).toBe('[Promise]');
    expect(format(new Uint8Array([1, 2]))).toBe('Uint8Array(2) [1, 2]');
    expect(format(Object.create(null))).toBe('[Object: null prototype] {}');
    class Point {
      x = 1;
    }
    expect(format(new Point())).toBe('Point { x: 1 }');
  });

  test('labels functions and classes', () => {
    expect(format(function named() {})).toBe('[Function named]');
    expect(format(() => {})).toBe('[Function]');
    expect(format(class Box {})).toBe('[class Box]');
  });

  test('marks cycles and limits depth and items', () => {
    const cyclic: Record<string, unknown> = { name: 'root' };
    cyclic.self = cyclic;
    expect(format(cyclic)).toBe('{ name: "root", self: [Circular] }');
    expect(format({ a: { b: { c: { d: { e: 1 } } } } })).toBe(
      '{ a: { b: { c: { d: [Object] } } } }',
    );
    const long = format(Array.from({ length: 150 }, (_, i) => i));
    expect(long.endsWith(', ... 50 more items]')).toBe(true);
  });

  test('never builds more than maxLength characters', () => {
    const huge = 'x'.repeat(10_000_000);
    expect(format(huge, 10)).toBe('xxxxxxxxx…');
    expect(format([huge], 10)).toBe('["xxxxxxx…');
    expect(format({ a: 'x'.repeat(50) }, 20)).toHaveLength(20);
    expect(format('short', 10)).toBe('short');
  });

  test('reports getters that throw instead of raising', () => {
    const tricky = {
      get boom(): never {
        throw new Error('nope');
      },
    };
    expect(format(tricky)).toBe('{ boom: [getter threw: nope] }');
    const hostile = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error('no keys');
        },
      },
    );
    expect(format(hostile)).toBe('[unformattable: no keys]');
  });
});
