import { describe, expect, test } from 'vitest';
import { describeContext, measure, measureItems } from './describe-context.js';
import { cpuMsSince } from './testing/measure-slowdown.js';

describe('describeContext', () => {
  test('an array: item count, item lengths and a preview', () => {
    const description = describeContext(['abc', { a: 1 }, 42]);
    expect(description).toMatchObject({
      type: 'array',
      itemCount: 3,
      itemLengths: [3, 7, 2],
      totalChars: 12,
      preview: '["abc",{"a":1},42]',
    });
  });

  test('shared references 60 levels deep are described at once, not walked path by path', () => {
    let value: unknown[] = ['leaf'];
    for (let level = 0; level < 60; level += 1) value = [value, value];
    const cpuBefore = process.cpuUsage();
    const description = describeContext({ value });
    expect(description).toMatchObject({ type: 'object', itemCount: 1, preview: '' });
    expect(measure(value)).toBe(0);
    // Generous, in CPU time (a busy machine does not stretch it): the walk stops after a million
    // visits; path by path would never end.
    expect(cpuMsSince(cpuBefore)).toBeLessThan(30_000);
  });

  test('many items each referencing one large object share one budget', () => {
    const big = Array.from({ length: 1_000 }, (_, index) => index);
    const lengths = measureItems(Array.from({ length: 5_000 }, () => big));
    expect(lengths[0]).toBe(JSON.stringify(big).length);
    expect(lengths.at(-1)).toBe(0);
  });

  test('a cycle is measured as 0 and not previewed', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(describeContext(cyclic)).toMatchObject({ type: 'object', totalChars: 0, preview: '' });
  });
});
