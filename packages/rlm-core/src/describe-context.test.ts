import { describe, expect, test } from 'vitest';
import { describeContext, measure, measureItems } from './describe-context.js';
import { buildContextMessage } from './prompts.js';
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

  test('an array of files: the paths of the first items, for the prompt', () => {
    const files = Array.from({ length: 25 }, (_, index) => ({
      path: `src/module-${index}.ts`,
      text: 'export {}',
    }));
    const description = describeContext(files);
    expect(description.itemPaths).toEqual(files.slice(0, 20).map((file) => file.path));
    const long = `${'deep/'.repeat(40)}name.md`;
    expect(describeContext([{ path: long, text: '' }]).itemPaths).toEqual([`…${long.slice(-119)}`]);
    // Only when every shown item has a string path.
    expect(describeContext([{ path: 'a.md' }, 'b']).itemPaths).toBeUndefined();
    expect(describeContext([{ path: 3 }]).itemPaths).toBeUndefined();
    expect(describeContext(['abc']).itemPaths).toBeUndefined();
    const message = buildContextMessage('q', description, { contexts: 1, histories: 0 });
    expect(message).toContain(
      `- item paths: ${files
        .slice(0, 20)
        .map((file) => file.path)
        .join(', ')}, ...\n`,
    );
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
