import { describe, expect, test } from 'vitest';
import { describeContext, measure, measureItems } from './describe-context.js';

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

  test('a long string: its first and last characters; a short one: only a preview', () => {
    const text = `START${'x'.repeat(1_000)}END`;
    const description = describeContext(text, 10);
    expect(description).toMatchObject({
      type: 'string',
      preview: 'STARTxxxxx',
      tail: 'xxxxxxxEND',
    });
    expect(describeContext('short text', 10)).not.toHaveProperty('tail');
  });

  test('a long array: its first and its last items, never the same item twice', () => {
    const items = Array.from({ length: 10 }, (_, index) => `doc ${index}`);
    const description = describeContext(items);
    expect(description.preview).toBe('["doc 0","doc 1","doc 2"]');
    expect(description.tail).toBe('["doc 7","doc 8","doc 9"]');
    expect(describeContext(items.slice(0, 5)).tail).toBe('["doc 3","doc 4"]');
    expect(describeContext(items.slice(0, 3))).not.toHaveProperty('tail');
    const long = describeContext(['a', 'b', 'c', 'd', 'e'.repeat(400)], 20);
    expect(long.tail).toBe(`...${'e'.repeat(18)}"]`);
  });

  test('shared references 60 levels deep are described at once, not walked path by path', () => {
    let value: unknown[] = ['leaf'];
    for (let level = 0; level < 60; level += 1) value = [value, value];
    const started = performance.now();
    const description = describeContext({ value });
    expect(description).toMatchObject({ type: 'object', itemCount: 1, preview: '' });
    expect(measure(value)).toBe(0);
    // Generous: the walk stops after a million visits; path by path would never end.
    expect(performance.now() - started).toBeLessThan(30_000);
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
