import { expect, test } from 'vitest';
import { textSlices } from './text-slices.js';

test('slices cover the text and never split a surrogate pair', () => {
  const text = 'ab😀c😀😀d\ud800e';
  for (const size of [2, 3, 4, 5, 100]) {
    const slices = [...textSlices(text, size)];
    expect(slices.join('')).toBe(text);
    for (const slice of slices) {
      expect(slice.length).toBeLessThanOrEqual(size);
      expect(/^[\udc00-\udfff]/.test(slice)).toBe(false);
    }
  }
  expect([...textSlices('', 4)]).toEqual([]);
});
