/**
 * Whether two JSON values are equal: same types, numbers and strings equal, arrays equal
 * element by element, objects with the same keys (in any order) and equal values.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, index) => jsonEqual(item, other[index]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  return (
    keys.length === Object.keys(right).length &&
    keys.every((key) => Object.hasOwn(right, key) && jsonEqual(left[key], right[key]))
  );
}

/**
 * Whether `actual` holds everything `expected` says: objects may have more keys (each expected
 * key must be present with a matching value, recursively); arrays must have the same length
 * with matching elements in order; other values must be equal.
 */
export function jsonSubset(expected: unknown, actual: unknown): boolean {
  if (typeof expected !== 'object' || expected === null) return expected === actual;
  if (typeof actual !== 'object' || actual === null) return false;
  if (Array.isArray(expected)) {
    return (
      Array.isArray(actual) &&
      expected.length === actual.length &&
      expected.every((item, index) => jsonSubset(item, actual[index]))
    );
  }
  if (Array.isArray(actual)) return false;
  const record = actual as Record<string, unknown>;
  return Object.entries(expected).every(
    ([key, value]) => Object.hasOwn(record, key) && jsonSubset(value, record[key]),
  );
}

/**
 * The JSON value an answer gives: the answer itself when it is structured data; for text, the
 * whole text parsed, else the content of a fenced ```json block, else the span from the first
 * `{` or `[` to the matching last `}` or `]`. `undefined` when none parses.
 */
export function answerJson(answer: unknown): { readonly value: unknown } | undefined {
  if (typeof answer !== 'string') return answer === undefined ? undefined : { value: answer };
  const candidates = [answer.trim()];
  const fenced = /```(?:json)?\s*\n([\s\S]*?)```/i.exec(answer);
  if (fenced) candidates.push(fenced[1]!.trim());
  for (const [open, close] of [
    ['{', '}'],
    ['[', ']'],
  ] as const) {
    const start = answer.indexOf(open);
    const end = answer.lastIndexOf(close);
    if (start !== -1 && end > start) candidates.push(answer.slice(start, end + 1));
  }
  for (const candidate of candidates) {
    try {
      return { value: JSON.parse(candidate) };
    } catch {
      // The next form, if any.
    }
  }
  return undefined;
}
