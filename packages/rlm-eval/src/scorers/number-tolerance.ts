import { EvalSettingsError } from '../errors/eval-settings-error.js';

/**
 * How far a number may be from the expected one and still score 1: within `absolute`, or within
 * `relative` times the expected number's size, whichever is wider.
 */
export interface NumberTolerance {
  readonly absolute: number;
  readonly relative: number;
}

/** Equal up to floating-point noise. */
export const defaultNumberTolerance: NumberTolerance = { absolute: 0, relative: 1e-9 };

/**
 * Reads a tolerance as written on a command line: `0.5` (absolute) or `2%` (relative).
 * Throws {@link EvalSettingsError} for anything else.
 */
export function parseNumberTolerance(text: string): NumberTolerance {
  const match = /^\s*(\d+(?:\.\d*)?|\.\d+)\s*(%?)\s*$/.exec(text);
  if (match === null) {
    throw new EvalSettingsError(
      `@rlm/eval: a tolerance is a number such as 0.5 (absolute) or 2% (relative); got ${JSON.stringify(text)}`,
      { setting: 'tolerance' },
    );
  }
  const value = Number(match[1]);
  return match[2] === '%'
    ? { absolute: 0, relative: value / 100 }
    : { absolute: value, relative: defaultNumberTolerance.relative };
}

/** Whether `actual` is within `tolerance` of `expected`. */
export function withinTolerance(
  actual: number,
  expected: number,
  tolerance: NumberTolerance,
): boolean {
  const allowed = Math.max(tolerance.absolute, tolerance.relative * Math.abs(expected));
  return Math.abs(actual - expected) <= allowed;
}
