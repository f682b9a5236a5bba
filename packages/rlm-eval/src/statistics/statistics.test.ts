import { describe, expect, test } from 'vitest';
import { percentile } from './percentile.js';
import { normalQuantile, studentTQuantile } from './quantiles.js';
import { scoreInterval } from './score-interval.js';

describe('quantiles', () => {
  test('match the published values', () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 6);
    expect(normalQuantile(0.95)).toBeCloseTo(1.644854, 6);
    expect(normalQuantile(0.995)).toBeCloseTo(2.575829, 6);
    expect(studentTQuantile(0.975, 1)).toBeCloseTo(12.706205, 5);
    expect(studentTQuantile(0.975, 2)).toBeCloseTo(4.302653, 6);
    expect(studentTQuantile(0.975, 9)).toBeCloseTo(2.262157, 6);
    expect(studentTQuantile(0.975, 29)).toBeCloseTo(2.04523, 5);
    expect(studentTQuantile(0.995, 4)).toBeCloseTo(4.604095, 5);
  });
});

describe('scoreInterval', () => {
  test('binary scores: the Wilson interval (7 of 10 correct)', () => {
    const scores = [1, 1, 1, 1, 1, 1, 1, 0, 0, 0];
    const interval = scoreInterval(scores)!;
    expect(interval.method).toBe('wilson');
    expect(interval.confidence).toBe(0.95);
    // Wilson, z = 1.959964: centre 0.6370, half-width 0.2602.
    expect(interval.low).toBeCloseTo(0.396774, 5);
    expect(interval.high).toBeCloseTo(0.892208, 5);
  });

  test('all right or all wrong still has a width; it never leaves [0, 1]', () => {
    const all = scoreInterval([1, 1, 1, 1, 1])!;
    expect(all.high).toBe(1);
    expect(all.low).toBeCloseTo(0.565518, 5);
    const none = scoreInterval([0, 0, 0, 0, 0])!;
    expect(none.low).toBe(0);
    expect(none.high).toBeCloseTo(0.434482, 5);
  });

  test('fractional scores: mean ± t · s / √n', () => {
    const scores = [0.5, 0.75, 1, 0.25, 0.5];
    const interval = scoreInterval(scores)!;
    // mean 0.6, s = 0.2850439, t(0.975, 4) = 2.776445: half-width 0.3539245.
    expect(interval.method).toBe('student-t');
    expect(interval.low).toBeCloseTo(0.6 - 0.3539245, 5);
    expect(interval.high).toBeCloseTo(0.6 + 0.3539245, 5);
    expect(scoreInterval([0.5, 0.9], 0.99)!.high).toBe(1);
  });

  test('no scores, or one fraction, have no interval', () => {
    expect(scoreInterval([])).toBeUndefined();
    expect(scoreInterval([0.4])).toBeUndefined();
    expect(scoreInterval([1])!.method).toBe('wilson');
  });
});

describe('percentile', () => {
  test('interpolates between the closest ranks', () => {
    expect(percentile([4, 1, 3, 2], 0.5)).toBe(2.5);
    expect(percentile([10, 20, 30, 40, 50, 60, 70, 80, 90, 100], 0.95)).toBeCloseTo(95.5, 9);
    expect(percentile([7], 0.95)).toBe(7);
    expect(percentile([], 0.5)).toBeUndefined();
  });
});
