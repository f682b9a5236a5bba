import { describe, expect, test } from 'vitest';
import { deserializeValue, serializeValue } from './serialize-value.js';

describe('serializeValue', () => {
  test('round-trips what a structured clone copies, typed arrays included', () => {
    const values: unknown[] = [
      'text',
      42,
      null,
      undefined,
      10n,
      // biome-ignore lint/suspicious/noSparseArray: holes survive a clone.
      [1, , 3],
      { nested: { list: [1, 'two'] } },
      new Map([[1, { a: 2 }]]),
      new Set(['a']),
      new Date(5),
      /a+/gi,
      new Uint8Array([1, 2]),
      new Float64Array([1.5]),
      new ArrayBuffer(3),
      new RangeError('out'),
    ];
    for (const value of values) {
      const copy = deserializeValue(serializeValue(value));
      expect(copy).toEqual(value);
      if (typeof value === 'object' && value !== null) {
        expect(copy).not.toBe(value);
        expect(Object.getPrototypeOf(copy)).toBe(Object.getPrototypeOf(value));
      }
    }
    expect(Buffer.isBuffer(deserializeValue(serializeValue(new Uint8Array(1))))).toBe(false);
  });

  test('throws for what does not clone', () => {
    expect(() => serializeValue(() => 1)).toThrow();
    expect(() => serializeValue({ symbol: Symbol('s') })).toThrow();
  });
});
