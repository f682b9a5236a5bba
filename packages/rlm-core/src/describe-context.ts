/** What the prompt says about a context, without including it. */
export interface ContextDescription {
  /** `string`, `array`, `object`, or `none`. */
  readonly type: 'string' | 'array' | 'object' | 'none';
  /** Total characters: the string's length, or the length of the JSON text. */
  readonly totalChars: number;
  /** Items in an array, keys of an object; absent for strings. */
  readonly itemCount?: number;
  /** Lengths of the first items of an array (JSON length for non-strings). */
  readonly itemLengths?: readonly number[];
  /** The first characters (string) or the first items' JSON (others), shortened. */
  readonly preview: string;
}

const itemLengthsShown = 20;

/** Describes a context for the prompt: type, size, a short preview. */
export function describeContext(context: unknown, previewChars = 300): ContextDescription {
  if (context === undefined || context === null) {
    return { type: 'none', totalChars: 0, preview: '' };
  }
  if (typeof context === 'string') {
    return { type: 'string', totalChars: context.length, preview: context.slice(0, previewChars) };
  }
  if (Array.isArray(context)) {
    const lengths = context.map(measure);
    return {
      type: 'array',
      totalChars: lengths.reduce((sum, length) => sum + length, 0),
      itemCount: context.length,
      itemLengths: lengths.slice(0, itemLengthsShown),
      preview: previewOf(context.slice(0, 3), previewChars),
    };
  }
  if (typeof context === 'object') {
    const keys = Object.keys(context);
    return {
      type: 'object',
      totalChars: measure(context),
      itemCount: keys.length,
      preview: previewOf(context, previewChars),
    };
  }
  const text = String(context);
  return { type: 'string', totalChars: text.length, preview: text.slice(0, previewChars) };
}

/** Characters of a value: its length for strings, its JSON length otherwise. */
export function measure(value: unknown): number {
  if (typeof value === 'string') return value.length;
  try {
    return JSON.stringify(value)?.length ?? 0;
  } catch {
    return 0;
  }
}

function previewOf(value: unknown, previewChars: number): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? '';
  } catch {
    text = '';
  }
  return text.length > previewChars ? `${text.slice(0, previewChars)}...` : text;
}
