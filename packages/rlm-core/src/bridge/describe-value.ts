/**
 * Names what a value is, for an error message written to model code: `undefined`, `null`, `an
 * empty string`, `a bigint`, `an array`, and so on. Never throws and never walks the value.
 */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  if (typeof value === 'string') {
    if (value.length === 0) return 'an empty string';
    return value.trim().length === 0 ? 'a string of only whitespace' : 'a string';
  }
  const type = typeof value;
  if (type !== 'object') return `a ${type}`;
  try {
    return Array.isArray(value) ? 'an array' : 'an object';
  } catch {
    // A revoked proxy throws even on Array.isArray.
    return 'an object';
  }
}
