import { describe, expect, test } from 'vitest';
import { AnswerTooLargeError, toPrintableData } from './to-printable-data.js';

function sharedLevels(levels: number): unknown[] {
  let node: unknown[] = ['leaf'];
  for (let level = 0; level < levels; level += 1) node = [node, node];
  return node;
}

describe('toPrintableData', () => {
  test('a value seen twice without a cycle is written twice while that stays small', () => {
    const shared = { x: 1 };
    expect(toPrintableData([shared, shared])).toEqual([{ x: 1 }, { x: 1 }]);
    expect(toPrintableData(sharedLevels(3))).toEqual(JSON.parse(JSON.stringify(sharedLevels(3))));
  });

  test('2^60 paths: each shared array is written once, later places point at the first', () => {
    const printed = toPrintableData(sharedLevels(60)) as unknown[];
    let node = printed;
    let path = '$';
    for (let level = 0; level < 60; level += 1) {
      expect(node[1]).toBe(`[Shared: ${path}[0]]`);
      node = node[0] as unknown[];
      path = `${path}[0]`;
    }
    expect(node).toEqual(['leaf']);
    expect(JSON.stringify(printed).length).toBeLessThan(20_000);
  });

  test('cycles, depth, maps, sets and bigints', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    expect(toPrintableData(cyclic)).toEqual({ name: 'loop', self: '[Circular]' });
    expect(toPrintableData(new Map([['k', new Set([1n])]]))).toEqual({ k: ['1'] });
    let deep: unknown = 'bottom';
    for (let level = 0; level < 5_000; level += 1) deep = [deep];
    let printed = toPrintableData(deep);
    let levels = 0;
    while (Array.isArray(printed)) {
      printed = printed[0];
      levels += 1;
    }
    expect(levels).toBe(1_000);
    expect(printed).toBe('[Nested too deep]');
  });

  test('text past maxChars is refused with what to do, however it is shared', () => {
    const big = 'x'.repeat(1_000);
    const limits = { maxExpandedNodes: 1_000_000, maxChars: 10_000, maxDepth: 1_000 };
    expect(() => toPrintableData(Array(11).fill(big), limits)).toThrow(AnswerTooLargeError);
    expect(() => toPrintableData(Array(11).fill(big), limits)).toThrow(
      /^the answer is too large to print: its text passes 10,000 characters; have the model store it with store\(\) and answer with a summary$/,
    );
    expect(toPrintableData(Array(9).fill(big), limits)).toHaveLength(9);
  });
});
