/**
 * `@name` references in tool inputs. A string that is exactly `"@name"` (at least one character
 * after the `@`, and not `"@@..."`) names a record; a string starting with `"@@"` is a literal
 * with one `@` dropped. Only arrays and plain objects are walked, only values (never keys).
 */
import { isPlainObject } from './json-value.js';

/** The record names `input` references, in order of first appearance. */
export function findReferences(input: unknown): string[] {
  const names = new Set<string>();
  const visit = (value: unknown): void => {
    if (typeof value === 'string') {
      const name = referencedName(value);
      if (name !== undefined) names.add(name);
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item);
    } else if (isPlainObject(value)) {
      for (const item of Object.values(value)) visit(item);
    }
  };
  visit(input);
  return [...names];
}

/**
 * A copy of `input` with each reference replaced by `values.get(name)` and each `"@@..."`
 * unescaped. Values put in are not walked again. Every referenced name must be in `values`.
 */
export function replaceReferences(input: unknown, values: ReadonlyMap<string, unknown>): unknown {
  if (typeof input === 'string') {
    const name = referencedName(input);
    if (name !== undefined) return values.get(name);
    return input.startsWith('@@') ? input.slice(1) : input;
  }
  if (Array.isArray(input)) return input.map((item) => replaceReferences(item, values));
  if (isPlainObject(input)) {
    // fromEntries defines own properties, so a "__proto__" key stays a plain key.
    return Object.fromEntries(
      Object.entries(input).map(([key, item]) => [key, replaceReferences(item, values)]),
    );
  }
  return input;
}

function referencedName(value: string): string | undefined {
  return value.length > 1 && value[0] === '@' && value[1] !== '@' ? value.slice(1) : undefined;
}
