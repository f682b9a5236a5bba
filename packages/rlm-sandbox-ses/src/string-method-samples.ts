/**
 * Test support for the fast string methods, shared by their tests: sample receivers and fresh
 * RegExp copies, so each side of a native-vs-fast comparison sees its own `lastIndex`.
 */

/** Receivers covering empty text, repeats, separators, surrogate pairs and a lone surrogate. */
export const sampleTexts = [
  '',
  'a',
  'abc',
  'aaa',
  'a-b-c',
  'x1y22z333',
  'ab😀cd😀',
  '😀',
  '\ud83d',
  'AbCaBc',
];

/** A fresh copy of a RegExp (same source, flags and `lastIndex`); other values as they are. */
export function copyPattern(value: unknown): unknown {
  if (!(value instanceof RegExp)) return value;
  const regExp = new RegExp(value.source, value.flags);
  regExp.lastIndex = value.lastIndex;
  return regExp;
}
