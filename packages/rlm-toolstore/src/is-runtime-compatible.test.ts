import { describe, expect, test } from 'vitest';
import { isRuntimeCompatible } from './is-runtime-compatible.js';

describe('isRuntimeCompatible', () => {
  test.each([
    ['1.2.3', '1.2.3', true],
    ['1.2.3', '1.9.0', true],
    ['1.2.3', '1.2.4', true],
    ['1.2.3', '1.2.2', false],
    ['1.2.3', '1.1.9', false],
    ['1.2.3', '2.0.0', false],
    ['0.1.0', '0.1.7', true],
    ['0.1.0', '0.2.0', false],
    ['v1.0.0', '1.0.0-beta.1', true],
    ['dev', 'dev', true],
    ['dev', '1.0.0', false],
  ])('%s -> %s: %s', (persisted, current, expected) => {
    expect(isRuntimeCompatible(persisted, current)).toBe(expected);
  });
});
