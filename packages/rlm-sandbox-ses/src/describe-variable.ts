import type { VariableInfo } from '@rlm/core';
import { formatValue } from './format-value.js';

/**
 * How a variable is shown to the model in a listing: its type, its size (characters, items,
 * entries or keys) and a preview of at most ~100 characters.
 *
 * @param length a string's own, when `value` is only its head (a text not decoded yet)
 */
export function describeVariable(name: string, value: unknown, length?: number): VariableInfo {
  let type: string = typeof value;
  let size = 0;
  try {
    if (value === null) type = 'null';
    else if (typeof value === 'string') size = length ?? value.length;
    else if (Array.isArray(value)) {
      type = 'array';
      size = value.length;
    } else if (value instanceof Map || value instanceof Set) {
      type = value instanceof Map ? 'map' : 'set';
      size = value.size;
    } else if (typeof value === 'object') size = Object.keys(value).length;
  } catch {
    // A proxy that throws: shown with what is known.
  }
  const preview = formatValue(value, { maxLength: 100, quoteStrings: true });
  return { name, type, size, preview };
}
