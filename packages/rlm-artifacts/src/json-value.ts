import type { ArtifactValueKind } from '@rlm/core';
import { ArtifactValueError } from './errors/artifact-value-error.js';

/**
 * `JSON.stringify(value)`, or an `ArtifactValueError` saying `what` cannot be stored: a
 * function, symbol or `undefined` (no JSON at all), a bigint, or a cycle.
 */
export function toJson(value: unknown, what: string): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    throw new ArtifactValueError(
      `@rlm/artifacts: ${what} is not JSON-serializable (${(error as Error).message}); store plain data`,
      { cause: error },
    );
  }
  if (json === undefined) {
    throw new ArtifactValueError(
      `@rlm/artifacts: ${what} is ${typeof value === 'undefined' ? 'undefined' : `a ${typeof value}`}, which has no JSON form; store plain data`,
    );
  }
  return json;
}

/** The JSON kind of a parsed JSON value and its length (characters, items or keys). */
export function describeJson(value: unknown): {
  valueKind: ArtifactValueKind;
  valueLength: number | undefined;
} {
  if (value === null) return { valueKind: 'null', valueLength: undefined };
  if (typeof value === 'string') return { valueKind: 'string', valueLength: value.length };
  if (Array.isArray(value)) return { valueKind: 'array', valueLength: value.length };
  if (typeof value === 'object') {
    return { valueKind: 'object', valueLength: Object.keys(value).length };
  }
  return { valueKind: typeof value === 'number' ? 'number' : 'boolean', valueLength: undefined };
}

/** Structural equality of two parsed JSON values; object key order does not matter. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((item, index) => jsonEqual(item, b[index]))
    );
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  return (
    keys.length === Object.keys(right).length &&
    keys.every((key) => Object.hasOwn(right, key) && jsonEqual(left[key], right[key]))
  );
}

/** Whether `value` is a plain object (`{}` or `Object.create(null)`), not an array or class. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
