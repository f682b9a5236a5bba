/**
 * Schema checks for stored entries. Each throws a `TypeError` saying what is wrong; the reader
 * turns it into an `ArtifactCorruptError` naming the key.
 */
import { isPlainObject } from './json-value.js';

/** The version every entry this package writes carries. */
export const entryVersion = 1;

/**
 * The entry as an object, after checking its `kind` tag and its version, one of `versions`
 * (default: {@link entryVersion} only).
 */
export function expectEntry(
  value: unknown,
  kind: string,
  versions: readonly number[] = [entryVersion],
): Record<string, unknown> {
  if (!isPlainObject(value)) {
    throw new TypeError(`expected a ${kind} entry, found ${describe(value)}`);
  }
  if (value.kind !== kind) {
    throw new TypeError(`expected a ${kind} entry, found kind ${JSON.stringify(value.kind)}`);
  }
  if (!versions.includes(value.version as number)) {
    throw new TypeError(`unsupported ${kind} version ${JSON.stringify(value.version)}`);
  }
  return value;
}

export function expectString(entry: Record<string, unknown>, field: string): string {
  const value = entry[field];
  if (typeof value !== 'string') throw fieldError(field, 'a string', value);
  return value;
}

export function expectNumber(entry: Record<string, unknown>, field: string): number {
  const value = entry[field];
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw fieldError(field, 'a finite number', value);
  }
  return value;
}

/** A non-negative integer: sizes, counts, sequence numbers. */
export function expectCount(entry: Record<string, unknown>, field: string): number {
  const value = entry[field];
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw fieldError(field, 'a non-negative integer', value);
  }
  return value;
}

export function expectOneOf<T extends string>(
  entry: Record<string, unknown>,
  field: string,
  allowed: readonly T[],
): T {
  const value = entry[field];
  if (!allowed.includes(value as T)) throw fieldError(field, allowed.join(' | '), value);
  return value as T;
}

export function expectStringArray(entry: Record<string, unknown>, field: string): string[] {
  const value = entry[field];
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw fieldError(field, 'an array of strings', value);
  }
  return value;
}

export function expectObject(
  entry: Record<string, unknown>,
  field: string,
): Record<string, unknown> {
  const value = entry[field];
  if (!isPlainObject(value)) throw fieldError(field, 'an object', value);
  return value;
}

function fieldError(field: string, expected: string, found: unknown): TypeError {
  return new TypeError(`field "${field}" should be ${expected}, found ${describe(found)}`);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') {
    return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)}`;
  }
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}
