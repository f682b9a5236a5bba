/** `value` if it is a number above 0 (`Infinity` allowed). @throws {RangeError} otherwise. */
export function positiveNumber(value: number, name: string): number {
  if (typeof value !== 'number' || Number.isNaN(value) || value <= 0) {
    throw new RangeError(
      `@rlm/core: ${name} must be a number above 0 (Infinity for never), got ${value}`,
    );
  }
  return value;
}

/** `value` if it is a whole number of 0 or more. @throws {RangeError} otherwise. */
export function nonNegativeInteger(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 0) {
    throw new RangeError(`@rlm/core: ${name} must be a whole number of 0 or more, got ${value}`);
  }
  return value;
}

/** `value` if it is a whole number of 1 or more. @throws {RangeError} otherwise. */
export function positiveInteger(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new RangeError(`@rlm/core: ${name} must be a positive integer, got ${value}`);
  }
  return value;
}
