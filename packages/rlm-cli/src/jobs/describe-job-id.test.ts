import { expect, test } from 'vitest';
import { describeJobId, describeJobIds } from './describe-job-id.js';

test('numbers as they are, strings quoted with control characters escaped', () => {
  expect(describeJobId(7)).toBe('7');
  expect(describeJobId('q-2')).toBe('"q-2"');
  expect(describeJobId('a\nrlm: forged line\u001b[2K')).toBe('"a\\nrlm: forged line\\u001b[2K"');
});

test('an id past 64 characters is cut, with its length', () => {
  const shown = describeJobId('x'.repeat(1_048_576));
  expect(shown).toBe(`"${'x'.repeat(47)}…" (1,048,576 characters)`);
  expect(shown.length).toBeLessThan(80);
  expect(describeJobId('y'.repeat(62))).toBe(`"${'y'.repeat(62)}"`);
});

test('a list shows the first ten ids and how many more', () => {
  expect(describeJobIds([1, 'b', 3])).toBe('1, "b", 3');
  expect(describeJobIds(Array.from({ length: 25 }, (_, index) => index))).toBe(
    '0, 1, 2, 3, 4, 5, 6, 7, 8, 9 and 15 more',
  );
});
