import { describe, expect, test } from 'vitest';
import { measurePlainData } from './measure-plain-data.js';

const limits = { maxNodes: 1_000, maxChars: 10_000, maxDepth: 50 };

describe('measurePlainData', () => {
  test('plain data: the count is the JSON length', () => {
    const value = { a: [1, 'two', null, true], b: { c: 'x'.repeat(100) } };
    const measured = measurePlainData(value, limits);
    expect(measured.ok).toBe(true);
    if (measured.ok) expect(measured.chars).toBe(JSON.stringify(value).length);
  });

  test('a cycle, a bigint and a function are refused with their path', () => {
    const cyclic: Record<string, unknown> = { a: {} };
    (cyclic.a as Record<string, unknown>).back = cyclic;
    expect(measurePlainData(cyclic, limits)).toEqual({
      ok: false,
      problem: '$.a.back refers back to itself (a cycle)',
    });
    expect(measurePlainData({ n: [1, 2n] }, limits)).toEqual({
      ok: false,
      problem: '$.n[1] is a bigint, which JSON cannot hold',
    });
    expect(measurePlainData({ f: () => 1 }, limits)).toMatchObject({ ok: false });
  });

  test('strict: what a JSON round trip would change is refused', () => {
    const strict = { ...limits, strict: true };
    expect(measurePlainData({ when: new Date(0) }, strict)).toEqual({
      ok: false,
      problem: '$.when is not a plain object or array',
    });
    expect(measurePlainData([Number.NaN], strict)).toEqual({
      ok: false,
      problem: '$[0] is NaN, which JSON cannot hold',
    });
    expect(measurePlainData({ a: undefined }, strict)).toMatchObject({ ok: false });
    expect(measurePlainData({ a: [1, { b: null }] }, strict)).toMatchObject({ ok: true });
  });

  test('a shared reference is fine when small; it counts at each place', () => {
    const shared = { x: 'y' };
    expect(measurePlainData([shared, shared], limits).ok).toBe(true);
  });

  test('shared references 60 levels deep stop at the node limit, not after 2^60 visits', () => {
    let value: unknown[] = [];
    for (let level = 0; level < 60; level += 1) value = [value, value];
    expect(measurePlainData(value, { ...limits, maxDepth: 100 })).toEqual({
      ok: false,
      problem: 'it has more than 1000 values (a shared reference counts at each place)',
    });
  });

  test('one large string referenced many times is refused by its JSON size', () => {
    const big = 'x'.repeat(4_000);
    expect(measurePlainData([big, big, big], limits)).toMatchObject({
      ok: false,
      problem: expect.stringContaining('over 10000 characters'),
    });
  });

  test('deep nesting is refused without exhausting the stack', () => {
    let value: unknown = 1;
    for (let level = 0; level < 100_000; level += 1) value = [value];
    expect(measurePlainData(value, { ...limits, maxNodes: 1_000_000 })).toEqual({
      ok: false,
      problem: 'it nests deeper than 50 levels',
    });
  });
});
