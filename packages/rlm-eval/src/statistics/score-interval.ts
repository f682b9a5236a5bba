import { normalQuantile, studentTQuantile } from './quantiles.js';

/**
 * A confidence interval for the mean score:
 * - `wilson`: the Wilson score interval, when every score is 0 or 1 (a proportion); it stays
 *   inside [0, 1] and behaves at 0 and n correct, where the normal approximation does not;
 * - `student-t`: mean ± t(df = n - 1) · s / √n, when some score is a fraction, clipped to
 *   [0, 1].
 */
export interface ScoreInterval {
  readonly method: 'wilson' | 'student-t';
  /** The confidence level, e.g. 0.95. */
  readonly confidence: number;
  readonly low: number;
  readonly high: number;
}

/**
 * The interval around the mean of `scores` (each in [0, 1]) at `confidence` (default 0.95),
 * Wilson for all-binary scores, Student's t otherwise (see {@link ScoreInterval}). `undefined`
 * for no scores, and for a single fractional score (no spread to measure).
 */
export function scoreInterval(
  scores: readonly number[],
  confidence = 0.95,
): ScoreInterval | undefined {
  const n = scores.length;
  if (n === 0) return undefined;
  const p = 1 - (1 - confidence) / 2;
  if (scores.every((score) => score === 0 || score === 1)) {
    const successes = scores.filter((score) => score === 1).length;
    return { method: 'wilson', confidence, ...wilsonInterval(successes, n, normalQuantile(p)) };
  }
  if (n < 2) return undefined;
  const mean = scores.reduce((sum, score) => sum + score, 0) / n;
  const variance = scores.reduce((sum, score) => sum + (score - mean) ** 2, 0) / (n - 1);
  const half = studentTQuantile(p, n - 1) * Math.sqrt(variance / n);
  return {
    method: 'student-t',
    confidence,
    low: Math.max(0, mean - half),
    high: Math.min(1, mean + half),
  };
}

/** The Wilson score interval of `successes` out of `n` for the normal quantile `z`. */
export function wilsonInterval(
  successes: number,
  n: number,
  z: number,
): { readonly low: number; readonly high: number } {
  const share = successes / n;
  const z2 = z * z;
  const centre = (share + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((share * (1 - share)) / n + z2 / (4 * n * n));
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}
