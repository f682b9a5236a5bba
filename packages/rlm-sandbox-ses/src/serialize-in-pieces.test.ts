import { createHash } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import {
  deserializeCheckpointBytes,
  type PiecesResult,
  pieceElements,
  serializeInPieces,
} from './serialize-in-pieces.js';

/** Runs the generator to its end; returns the result, the bytes joined and the pieces made. */
function serialize(value: unknown, maxBytes = 512 * 1024 * 1024) {
  const pieces = serializeInPieces(value, maxBytes);
  let yields = 0;
  let step = pieces.next();
  while (!step.done) {
    yields += 1;
    step = pieces.next();
  }
  const result: PiecesResult = step.value;
  const bytes = result.ok ? Buffer.concat(result.parts) : undefined;
  return { result, bytes, yields };
}

const many = pieceElements * 2 + 7;

describe('large arrays, Maps, Sets and strings of primitives are made in pieces', () => {
  const cases: [string, unknown][] = [
    [
      'an array of strings, numbers, -0, NaN, undefined, null, booleans, BigInts, two-byte text',
      Array.from(
        { length: many },
        (_, index) =>
          [`w${index}`, index, -0, Number.NaN, undefined, null, true, 2n ** 70n, 'żółw'][index % 9],
      ),
    ],
    [
      'a Map of words to counts',
      new Map(Array.from({ length: many }, (_, index) => [`w${index}`, index])),
    ],
    ['a Set of numbers', new Set(Array.from({ length: many }, (_, index) => index * 1.5))],
    ['a string of 3.5 million characters', 'ab\u00e9\u4e16'.repeat(875_000)],
  ];
  test.each(cases)('%s: comes back equal, and the digest is of the bytes', (_, value) => {
    const { result, bytes, yields } = serialize(value);
    expect(result.ok).toBe(true);
    expect(yields).toBeGreaterThan(1);
    expect(bytes?.[0]).toBe(0);
    const back = deserializeCheckpointBytes(bytes as Uint8Array);
    expect(back).toEqual(value);
    if (Array.isArray(value)) {
      // -0 and NaN exactly, not only as toEqual sees them.
      expect(Object.is((back as unknown[])[2], -0)).toBe(true);
      expect(Number.isNaN((back as unknown[])[3])).toBe(true);
    }
    expect(result.ok && result.digest).toBe(
      createHash('sha256')
        .update(bytes as Uint8Array)
        .digest('hex'),
    );
  });
});

describe('what does not split is made whole, in V8 format', () => {
  const holey: unknown[] = Array.from({ length: many }, (_, index) => index);
  delete holey[many - 3];
  const shared = { n: 1 };
  const cases: [string, unknown][] = [
    ['a small array', [1, 2, 3]],
    ['an array with a hole', holey],
    [
      'an array holding a shared object',
      Array.from({ length: many }, (_, index) => (index % 2 ? shared : index)),
    ],
    ['a Map with object values', new Map(Array.from({ length: many }, (_, index) => [index, {}]))],
  ];
  test.each(cases)('%s', (_, value) => {
    const { result, bytes } = serialize(value);
    expect(result.ok).toBe(true);
    expect(bytes?.[0]).toBe(0xff);
    const back = deserializeCheckpointBytes(bytes as Uint8Array);
    expect(back).toEqual(value);
    if (value === holey) expect(many - 3 in (back as unknown[])).toBe(false);
  });

  test('an array holding the same object twice keeps one object', () => {
    const value = Array.from({ length: many }, (_, index) => (index % 2 ? shared : index));
    const back = deserializeCheckpointBytes(serialize(value).bytes as Uint8Array) as object[];
    expect(back[1]).toBe(back[3]);
  });
});

test('a symbol inside, a function, a class instance: not saved, with the reason', () => {
  const withSymbol = Array.from({ length: many }, (_, index) =>
    index === many - 1 ? Symbol('s') : index,
  );
  expect(serialize(withSymbol).result).toMatchObject({ ok: false, reason: 'a symbol' });
  expect(serialize(() => 1).result).toMatchObject({ ok: false, reason: 'a function' });
  class Point {}
  expect(serialize(new Point()).result).toMatchObject({ ok: false, reason: 'a class instance' });
});

test('a getter that throws inside a large array: not saved, with the reason, not thrown', () => {
  const hostile: unknown[] = Array.from({ length: many }, (_, index) => index);
  Object.defineProperty(hostile, many - 5, {
    get() {
      throw new Error('boom');
    },
  });
  expect(serialize(hostile).result).toEqual({
    ok: false,
    reason: 'reading it threw (boom)',
    tooLarge: false,
  });
});

test('a value over the limit is too large, in pieces or whole, never half-made', () => {
  const words = Array.from({ length: many }, (_, index) => `word-${index}`);
  expect(serialize(words, 100_000).result).toMatchObject({ ok: false, tooLarge: true });
  expect(serialize('x'.repeat(2_000_000), 1_000_000).result).toMatchObject({
    ok: false,
    tooLarge: true,
  });
  expect(serialize({ text: 'x'.repeat(2000) }, 1000).result).toMatchObject({
    ok: false,
    tooLarge: true,
  });
});

test('many references to one long string are refused before they are cloned', () => {
  const long = 'x'.repeat(2 ** 20);
  // 8 GiB once cloned: refused from the count, without the memory (a clone would fail here).
  const shared = Array.from({ length: many }, () => long);
  expect(serialize(shared, 256 * 2 ** 20).result).toMatchObject({ ok: false, tooLarge: true });
  const map = new Map(Array.from({ length: many }, (_, index) => [index, long]));
  expect(serialize(map, 256 * 2 ** 20).result).toMatchObject({ ok: false, tooLarge: true });
});

test('bytes that are not checkpoint bytes are refused', () => {
  const good = serialize(Array.from({ length: many }, (_, index) => index)).bytes as Uint8Array;
  expect(() => deserializeCheckpointBytes(good.subarray(0, good.byteLength - 3))).toThrow(
    /cut short/,
  );
  expect(() => deserializeCheckpointBytes(Uint8Array.from([0, 1, 2]))).toThrow(
    /not checkpoint bytes/,
  );
  const badKind = Uint8Array.from(good);
  badKind[5] = 9;
  expect(() => deserializeCheckpointBytes(badKind)).toThrow(/unknown kind/);
});
