import { expect, test } from 'vitest';
import { TimeSlicer } from './time-slicer.js';

test('pause gives the event loop a turn once a slice is used up, not within one', async () => {
  let turns = 0;
  const count = () => {
    turns++;
  };
  setImmediate(count);
  await new TimeSlicer(Number.POSITIVE_INFINITY).pause();
  expect(turns).toBe(0);
  await new TimeSlicer(0).pause();
  expect(turns).toBe(1);
});
