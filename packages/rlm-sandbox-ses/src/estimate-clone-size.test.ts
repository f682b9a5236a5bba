import { describe, expect, test } from 'vitest';
import { estimateCloneSize as estimate } from './estimate-clone-size.js';

/** The bytes, or undefined when refused. */
function estimateCloneSize(value: unknown, limit: number): number | undefined {
  const found = estimate(value, limit);
  return found.ok ? found.bytes : undefined;
}

describe('estimateCloneSize', () => {
  test('sizes plain data roughly by what a clone copies', () => {
    expect(estimateCloneSize('x'.repeat(1000), 10_000)).toBe(1016);
    expect(estimateCloneSize(42, 100)).toBe(8);
    const small = estimateCloneSize(
      { list: [1, 2, 3], when: new Date(0), tags: new Set(['a']) },
      10_000,
    );
    expect(small).toBeGreaterThan(0);
    expect(estimateCloneSize(new Uint8Array(4096), 10_000)).toBeGreaterThan(4096);
  });

  test('sizes primitives inside containers as if they were walked one by one', () => {
    expect(estimateCloneSize(['ab', 1, null, { a: 'x' }], 1e6)).toBe(164);
    expect(
      estimateCloneSize(
        new Map<unknown, unknown>([
          ['k', 1],
          [2, [true]],
        ]),
        1e6,
      ),
    ).toBe(113);
    expect(estimateCloneSize(new Set(['a', 'bb']), 1e6)).toBe(67);
    // biome-ignore lint/suspicious/noSparseArray: a hole clones like undefined.
    expect(estimateCloneSize([undefined, , 1n], 1e6)).toBe(80);
    const words = Array.from({ length: 100_000 }, (_, i) => `w${i}`);
    expect(estimateCloneSize(words, 1e6)).toBeUndefined();
    expect(estimateCloneSize(words, 1e8)).toBeGreaterThan(2_400_000);
  });

  test('counts shared and cyclic objects once', () => {
    const shared = { name: 'shared' };
    const cyclic: Record<string, unknown> = { a: shared, b: shared };
    cyclic.self = cyclic;
    expect(estimateCloneSize(cyclic, 10_000)).toBeLessThan(300);
  });

  test('refuses what a clone would not bring back the same', () => {
    expect(estimateCloneSize(() => 1, 10_000)).toBeUndefined();
    expect(estimateCloneSize({ nested: [Symbol('s')] }, 10_000)).toBeUndefined();
    class Point {
      x = 1;
    }
    expect(estimateCloneSize([new Point()], 10_000)).toBeUndefined();
  });

  test('stops as soon as the value passes the limit', () => {
    expect(estimateCloneSize('x'.repeat(1000), 100)).toBeUndefined();
    let reads = 0;
    const huge = new Proxy(new Array(1_000_000).fill(0), {
      get(target, key, receiver) {
        reads++;
        return Reflect.get(target, key, receiver);
      },
    });
    expect(estimateCloneSize(huge, 1000)).toBeUndefined();
    expect(reads).toBeLessThan(10);
  });

  test('counts a string at every place it appears, as the serializer copies it', () => {
    const mebibyteString = 'x'.repeat(2 ** 20);
    const shared = new Array(4500).fill(mebibyteString);
    const started = performance.now();
    expect(estimate(shared, 256 * 2 ** 20)).toEqual({ ok: false, tooLarge: true });
    // Refused after a few hundred entries, not after 4,500 MiB of copying.
    expect(performance.now() - started).toBeLessThan(1000);
    expect(estimateCloneSize(shared.slice(0, 3), 4 * 2 ** 20)).toBeGreaterThan(3 * 2 ** 20);
  });

  test('tells a value too large from one that does not clone', () => {
    expect(estimate(['x'.repeat(100), () => 1], 10)).toEqual({ ok: false, tooLarge: true });
    expect(estimate(['x', () => 1], 10_000)).toEqual({ ok: false, tooLarge: false });
    expect(estimate(Symbol('s'), 10_000)).toEqual({ ok: false, tooLarge: false });
    class Point {
      x = 1;
    }
    expect(estimate(new Point(), 10_000)).toEqual({ ok: false, tooLarge: false });
    expect(estimate(new Point(), 10_000, { acceptInstances: true })).toMatchObject({ ok: true });
  });
});
