import { describe, expect, test } from 'vitest';
import { cpuMsSince } from '@rlm/core/testing';
import { copyForTransfer } from './copy-for-transfer.js';
import { serializeValue } from './serialize-value.js';

/** The bytes counted, or undefined when refused. */
function size(value: unknown, limit: number): number | undefined {
  const copy = copyForTransfer(value, limit);
  return copy.ok ? copy.bytes : undefined;
}

const mebibyte = 2 ** 20;

describe('copyForTransfer', () => {
  test('sizes plain data roughly by what a clone copies', () => {
    expect(size('x'.repeat(1000), 10_000)).toBe(1016);
    expect(size(42, 100)).toBe(8);
    expect(
      size({ list: [1, 2, 3], when: new Date(0), tags: new Set(['a']) }, 10_000),
    ).toBeGreaterThan(0);
    expect(size(new Uint8Array(4096), 10_000)).toBeGreaterThan(4096);
  });

  test('sizes primitives inside containers as if they were walked one by one', () => {
    expect(size(['ab', 1, null, { a: 'x' }], 1e6)).toBe(164);
    expect(
      size(
        new Map<unknown, unknown>([
          ['k', 1],
          [2, [true]],
        ]),
        1e6,
      ),
    ).toBe(113);
    expect(size(new Set(['a', 'bb']), 1e6)).toBe(67);
    // biome-ignore lint/suspicious/noSparseArray: a hole clones like undefined.
    expect(size([undefined, , 1n], 1e6)).toBe(80);
    const words = Array.from({ length: 100_000 }, (_, i) => `w${i}`);
    expect(size(words, 1e6)).toBeUndefined();
    expect(size(words, 1e8)).toBeGreaterThan(2_400_000);
  });

  test('keeps the holes of a sparse array', () => {
    const sparse: unknown[] = [];
    sparse[0] = undefined;
    sparse[5] = 'x';
    const copy = copyForTransfer(sparse, 1e6);
    expect(copy.ok).toBe(true);
    const copied = (copy as { value: unknown[] }).value;
    expect(copied).toHaveLength(6);
    expect(0 in copied).toBe(true);
    expect(1 in copied).toBe(false);
    expect(copied[5]).toBe('x');
  });

  test('a copy of an array without holes serialises as compactly as the array itself', () => {
    const words = Array.from({ length: 10_000 }, (_, i) => `w${i % 97}`);
    const copy = copyForTransfer(words, 1e8);
    expect(copy.ok).toBe(true);
    const copied = (copy as { value: unknown[] }).value;
    // A holey copy would be written index by index, about twice the bytes.
    expect(serializeValue(copied).byteLength).toBe(serializeValue(words).byteLength);
    const trailing: unknown[] = ['a'];
    trailing.length = 3;
    const trailingCopy = (copyForTransfer(trailing, 1e6) as { value: unknown[] }).value;
    expect(trailingCopy).toHaveLength(3);
    expect(2 in trailingCopy).toBe(false);
  });

  test('copies plain data, keeping shared and cyclic objects shared and counted once', () => {
    const shared = { name: 'shared' };
    const cyclic: Record<string, unknown> = { a: shared, b: shared, list: [shared] };
    cyclic.self = cyclic;
    const copy = copyForTransfer(cyclic, 10_000);
    expect(copy.ok && copy.bytes).toBeLessThan(400);
    const value = (copy as { value: Record<string, unknown> }).value;
    expect(value).not.toBe(cyclic);
    expect(value.self).toBe(value);
    expect(value.a).toBe(value.b);
    expect((value.list as unknown[])[0]).toBe(value.a);
    expect(value.a).toEqual({ name: 'shared' });
  });

  test('counts a string at every place it appears, as the serializer copies it', () => {
    const shared = new Array(4500).fill('x'.repeat(mebibyte));
    const cpuBefore = process.cpuUsage();
    expect(copyForTransfer(shared, 256 * mebibyte)).toEqual({ ok: false, tooLarge: true });
    // Refused after a few hundred entries, not after 4,500 MiB of copying: CPU time, which a
    // busy machine does not stretch.
    expect(cpuMsSince(cpuBefore)).toBeLessThan(1000);
    expect(size(shared.slice(0, 3), 4 * mebibyte)).toBeGreaterThan(3 * mebibyte);
    // Strings an error or a regexp holds count too.
    const message = 'm'.repeat(mebibyte);
    const errors = Array.from({ length: 300 }, () => new Error(message));
    expect(copyForTransfer(errors, 256 * mebibyte)).toEqual({ ok: false, tooLarge: true });
    expect(size(new RegExp('r'.repeat(1000)), 10_000)).toBeGreaterThan(1000);
  });

  test('a view counts the whole buffer it looks at, once for all its views', () => {
    const buffer = new ArrayBuffer(mebibyte);
    expect(size(new Uint8Array(buffer, 0, 1), 1000)).toBeUndefined();
    const views = Array.from({ length: 100 }, (_, i) => new Uint8Array(buffer, i, 1));
    const bytes = size(views, 2 * mebibyte) as number;
    expect(bytes).toBeGreaterThan(mebibyte);
    expect(bytes).toBeLessThan(mebibyte + 10_000);
  });

  test('runs each getter once: the copy clones to what was counted, whatever a getter does next', () => {
    let reads = 0;
    const big = 'x'.repeat(mebibyte);
    const tricky = Array.from({ length: 4500 }, () => ({
      get text() {
        reads += 1;
        // Small while measured, large if read again by the serializer.
        return reads <= 4500 ? 'small' : big;
      },
    }));
    const copy = copyForTransfer(tricky, 256 * mebibyte);
    expect(copy.ok).toBe(true);
    expect(reads).toBe(4500);
    const bytes = serializeValue((copy as { value: unknown }).value);
    expect(reads).toBe(4500);
    expect(bytes.byteLength).toBeLessThan((copy as { bytes: number }).bytes);
  });

  test('refuses what a clone would not bring back the same, saying what it is', () => {
    const problem = (value: unknown, acceptInstances = false) => {
      const copy = copyForTransfer(value, 10_000, { acceptInstances });
      return copy.ok || copy.tooLarge ? undefined : copy.problem;
    };
    expect(problem(() => 1)).toBe('a function');
    expect(problem({ nested: [Symbol('s')] })).toBe('a symbol');
    expect(problem(new Proxy({}, {}))).toBe('a proxy');
    expect(problem([Promise.resolve(1)])).toBe('a promise (await it first)');
    expect(problem(new WeakMap())).toBe('a weak collection');
    class Point {
      x = 1;
    }
    expect(problem([new Point()])).toBe('a class instance');
    const copy = copyForTransfer(new Point(), 10_000, { acceptInstances: true });
    expect(copy.ok && { ...(copy.value as object) }).toEqual({ x: 1 });
  });

  test('stops as soon as the value passes the limit', () => {
    expect(copyForTransfer('x'.repeat(1000), 100)).toEqual({ ok: false, tooLarge: true });
    expect(copyForTransfer(['x'.repeat(100), () => 1], 10)).toEqual({ ok: false, tooLarge: true });
    let reads = 0;
    const huge = new Array(1_000_000).fill(0);
    Object.defineProperty(huge, 0, {
      get() {
        reads++;
        return 'x'.repeat(2000);
      },
    });
    expect(copyForTransfer(huge, 1000)).toEqual({ ok: false, tooLarge: true });
    expect(copyForTransfer(new Array(10 ** 9), 1000)).toEqual({ ok: false, tooLarge: true });
    expect(reads).toBe(0);
  });
});
