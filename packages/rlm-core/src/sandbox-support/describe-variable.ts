import type { VariableInfo } from '../sandbox.js';

/** Most characters of a variable's preview in a listing. */
export const maxPreviewChars = 100;

/**
 * The built-ins the rule uses, captured when it is made: a sandbox that runs it inside the
 * guest's realm passes the realm's own, taken before model code runs.
 */
export interface VariableDescriberIntrinsics {
  readonly isArray: (value: unknown) => boolean;
  readonly keys: (value: object) => string[];
  readonly Map: MapConstructor;
  readonly Set: SetConstructor;
}

/**
 * Describes one variable for a listing.
 *
 * @param preview formats the value in at most `maxChars` characters (strings quoted); what it
 *   throws becomes `[unprintable]`
 * @param length a string's own length, when `value` is only its head (a text not decoded yet)
 */
export type DescribeVariable = (
  name: string,
  value: unknown,
  preview: (value: unknown, maxChars: number) => string,
  length?: number,
) => VariableInfo;

/**
 * The one rule every sandbox describes its variables to the model with: the type (`null`,
 * `array`, `map`, `set`, or `typeof`), the size (a string's characters, an array's items, a
 * map's or set's entries, an object's own enumerable keys, else 0) and a preview of at most
 * {@link maxPreviewChars}. A value whose inspection throws (a hostile proxy) is shown with what
 * is known. Self-contained, so that a sandbox can also evaluate its source (`String(...)`)
 * inside the guest's realm, as `@rlm/sandbox-quickjs` does.
 */
export function makeVariableDescriber(intrinsics: VariableDescriberIntrinsics): DescribeVariable {
  const { isArray, keys, Map: MapType, Set: SetType } = intrinsics;
  return (name, value, preview, length) => {
    let type: string = typeof value;
    let size = 0;
    try {
      if (value === null) type = 'null';
      else if (typeof value === 'string') size = length ?? value.length;
      else if (isArray(value)) {
        type = 'array';
        size = (value as unknown[]).length;
      } else if (value instanceof MapType || value instanceof SetType) {
        type = value instanceof MapType ? 'map' : 'set';
        size = value.size;
      } else if (typeof value === 'object') size = keys(value as object).length;
    } catch {
      // A proxy that throws: shown with what is known.
    }
    let text: string;
    try {
      // maxPreviewChars, inlined: the function refers to nothing outside it.
      text = preview(value, 100);
    } catch {
      text = '[unprintable]';
    }
    return { name, type, size, preview: text };
  };
}

/** {@link makeVariableDescriber} with this realm's built-ins. */
export const describeVariable: DescribeVariable = makeVariableDescriber({
  isArray: Array.isArray,
  keys: Object.keys,
  Map,
  Set,
});
