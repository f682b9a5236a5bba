import { createHash } from 'node:crypto';
import { expect, test } from 'vitest';
import { hashContext } from './hash-context.js';
import { runKey } from './run-key.js';

test('equal contexts hash equal; key order does not matter', () => {
  expect(hashContext('some text')).toBe(hashContext('some text'));
  expect(hashContext({ a: 1, b: [1, 'x'] })).toBe(hashContext({ b: [1, 'x'], a: 1 }));
  expect(hashContext([{ id: 1 }, null, true, undefined, 2n])).toBe(
    hashContext([{ id: 1 }, null, true, undefined, 2n]),
  );
  expect(hashContext(new Uint8Array([1, 2]))).toBe(hashContext(Buffer.from([1, 2])));
  expect(hashContext('x')).toMatch(/^[0-9a-f]{64}$/);
});

test('types and boundaries are part of the hash', () => {
  const distinct = [
    '1',
    1,
    [1],
    ['1'],
    ['ab'],
    ['a', 'b'],
    'ab',
    { a: 'b' },
    { ab: '' },
    null,
    undefined,
    '',
    [],
    {},
    true,
    'true',
    0,
    -0,
    new Uint8Array([97, 98]),
  ];
  const hashes = new Set(distinct.map((value) => hashContext(value)));
  expect(hashes.size).toBe(distinct.length);
});

test('a large string hashes by streaming, the same as its type-tagged bytes', () => {
  const text = `${'0123456789'.repeat(1_000_000)}😀`;
  const expected = createHash('sha256')
    .update(`s${text.length}:`)
    .update(text, 'utf8')
    .digest('hex');
  expect(hashContext(text)).toBe(expected);
});

test('unsupported values and cycles throw a TypeError', () => {
  const cycle: unknown[] = [];
  cycle.push(cycle);
  for (const value of [() => 1, Symbol('s'), new Map(), new Date(0), cycle]) {
    expect(() => hashContext(value)).toThrow(TypeError);
  }
  const shared = { x: 1 };
  expect(() => hashContext([shared, shared])).not.toThrow();
});

test('runKey is stable and separates query from context hash', () => {
  const contextHash = hashContext('context');
  expect(runKey('query', contextHash)).toBe(runKey('query', contextHash));
  expect(runKey('query', contextHash)).toMatch(/^[0-9a-f]{32}$/);
  expect(runKey('query', contextHash)).not.toBe(runKey('query ', contextHash));
  expect(runKey('a', 'bc')).not.toBe(runKey('ab', 'c'));
});
