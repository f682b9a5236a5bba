import { measurePlainData, type PlainDataLimits } from './bridge/measure-plain-data.js';
import { Utf8Text } from './utf8-text.js';

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
  /**
   * The `path` of the first items of an array whose items are objects with a string `path`
   * (files, as the CLI's `--context-dir` gives them: `{ path, text }`), so the model can name
   * them before reading any; absent otherwise.
   */
  readonly itemPaths?: readonly string[];
  /** The first characters (string) or the first items' JSON (others), shortened. */
  readonly preview: string;
  /**
   * The last characters of a string, or the last items' JSON of an array, shortened; absent
   * when the preview already shows the whole context.
   */
  readonly tail?: string;
}

const itemLengthsShown = 20;
/** Items of an array previewed at each end. */
const itemsPreviewed = 3;

/** Describes a context for the prompt: type, size, a preview of its start and of its end. */
export function describeContext(context: unknown, previewChars = 300): ContextDescription {
  if (context === undefined || context === null) {
    return { type: 'none', totalChars: 0, preview: '' };
  }
  if (typeof context === 'string') return describeText(context, previewChars);
  if (Utf8Text.isInstance(context)) return describeText(context, previewChars);
  if (Array.isArray(context)) {
    const lengths = measureItems(context);
    const paths = itemPathsOf(context);
    const tailFrom = Math.max(itemsPreviewed, context.length - itemsPreviewed);
    return {
      type: 'array',
      totalChars: lengths.reduce((sum, length) => sum + length, 0),
      itemCount: context.length,
      itemLengths: lengths.slice(0, itemLengthsShown),
      ...(paths ? { itemPaths: paths } : {}),
      preview: previewOf(context.slice(0, itemsPreviewed), previewChars),
      ...(tailFrom < context.length
        ? { tail: previewOf(context.slice(tailFrom), previewChars, 'end') }
        : {}),
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
  return describeText(String(context), previewChars);
}

/** A string's start and, when it is longer than both, its end. */
function describeText(text: string | Utf8Text, previewChars: number): ContextDescription {
  const isString = typeof text === 'string';
  return {
    type: 'string',
    totalChars: text.length,
    preview: isString ? text.slice(0, previewChars) : text.head(previewChars),
    ...(text.length > 2 * previewChars
      ? { tail: isString ? text.slice(-previewChars) : text.tail(previewChars) }
      : {}),
  };
}

/** Characters of one item path shown; longer ones keep their end (the file's name). */
const itemPathChars = 120;

/** The paths of the first items when each of them is an object with a string `path`. */
function itemPathsOf(items: readonly unknown[]): string[] | undefined {
  const first = items.slice(0, itemLengthsShown);
  const paths: string[] = [];
  for (const item of first) {
    const path =
      typeof item === 'object' && item !== null && Object.hasOwn(item, 'path')
        ? (item as { path: unknown }).path
        : undefined;
    if (typeof path !== 'string') return undefined;
    paths.push(path.length > itemPathChars ? `…${path.slice(-(itemPathChars - 1))}` : path);
  }
  return paths.length > 0 ? paths : undefined;
}

/** Limits of measuring a context: past them it is not measured (0) and not previewed. */
const contextLimits: PlainDataLimits = {
  maxNodes: 1_000_000,
  maxChars: 512 * 1024 * 1024,
  maxDepth: 1_000,
};

/**
 * Characters of a value: its length for strings, about its JSON length otherwise (see
 * {@link measurePlainData}), without building the text; 0 when it cannot be measured (a cycle,
 * a bigint, too many values).
 */
export function measure(value: unknown): number {
  if (typeof value === 'string' || Utf8Text.isInstance(value)) return value.length;
  const measured = measurePlainData(value, contextLimits);
  return measured.ok ? measured.chars : 0;
}

/**
 * The length of each item (as {@link measure}), all items sharing one node budget, so an array
 * of many items each holding many shared references is still measured in bounded work; items
 * past the budget count 0.
 */
export function measureItems(items: readonly unknown[]): number[] {
  let nodesLeft = contextLimits.maxNodes;
  return items.map((item) => {
    if (typeof item === 'string') return item.length;
    if (nodesLeft <= 0) return 0;
    const measured = measurePlainData(item, { ...contextLimits, maxNodes: nodesLeft });
    if (!measured.ok) {
      nodesLeft = 0;
      return 0;
    }
    nodesLeft -= measured.nodes;
    return measured.chars;
  });
}

/**
 * The first (or, for `end`, the last) `previewChars` of the value's JSON, built only when the
 * value is small enough.
 */
function previewOf(value: unknown, previewChars: number, from: 'start' | 'end' = 'start'): string {
  const measured = measurePlainData(value, contextLimits);
  if (!measured.ok) return '';
  let text: string;
  try {
    text = JSON.stringify(value) ?? '';
  } catch {
    text = '';
  }
  if (text.length <= previewChars) return text;
  return from === 'start' ? `${text.slice(0, previewChars)}...` : `...${text.slice(-previewChars)}`;
}
