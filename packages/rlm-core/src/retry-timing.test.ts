import { describe, expect, test } from 'vitest';
import { backoffDelayMs, readRetryAfterMs } from './retry-timing.js';

describe('backoffDelayMs', () => {
  test('starts at 0.5 s, doubles, stops at 8 s', () => {
    expect([1, 2, 3, 4, 5, 6, 9].map(backoffDelayMs)).toEqual([
      500, 1_000, 2_000, 4_000, 8_000, 8_000, 8_000,
    ]);
  });
});

describe('readRetryAfterMs', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  test.each([
    [{ 'retry-after-ms': '250' }, 250],
    [{ 'retry-after': '3' }, 3_000],
    [{ 'retry-after': '0.5' }, 500],
    [{ 'retry-after': 'Thu, 01 Jan 2026 00:01:00 GMT' }, 60_000],
    [{ 'retry-after': 'Wed, 31 Dec 2025 23:00:00 GMT' }, 0],
    [{ 'retry-after': 'soon' }, undefined],
    [{}, undefined],
  ])('%j is %s ms', (headers, expected) => {
    expect(readRetryAfterMs(new Headers(headers), now)).toBe(expected);
  });

  test('retry-after-ms wins over retry-after', () => {
    expect(readRetryAfterMs(new Headers({ 'retry-after-ms': '20', 'retry-after': '9' }))).toBe(20);
  });
});
