import { expect, test } from 'vitest';
import { ServerSettingsError } from './errors/server-settings-error.js';
import { RunSlots } from './run-slots.js';

test('slots are refused once all are taken, and given back once each', () => {
  const slots = new RunSlots(2);
  const first = slots.tryTake();
  const second = slots.tryTake();
  expect(first).toBeTypeOf('function');
  expect(second).toBeTypeOf('function');
  expect(slots.tryTake()).toBeUndefined();
  expect(slots.taken).toBe(2);
  first!();
  first!();
  expect(slots.taken).toBe(1);
  const third = slots.tryTake();
  expect(third).toBeTypeOf('function');
  expect(slots.tryTake()).toBeUndefined();
});

test.each([0, -1, 1.5, Number.NaN])('a size of %s is a settings error', (size) => {
  expect(() => new RunSlots(size)).toThrow(ServerSettingsError);
});
