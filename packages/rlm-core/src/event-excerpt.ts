import { describeValue } from './bridge/describe-value.js';
import { measurePlainData } from './bridge/measure-plain-data.js';

/** Characters of a host call's arguments or result that bridge events carry. */
export const eventExcerptChars = 300;

/**
 * A short, single-string view of `value` for telemetry: strings as they are, anything else as
 * JSON (or `String(value)` when it has no JSON form), cut to `maxChars` characters with `…`
 * and the full length appended when longer. Never throws (a throwing getter or `toJSON`
 * gives `[unreadable value]`), and its work is bounded: a value too large or too shared to
 * write out cheaply is described by its kind and size instead.
 */
export function eventExcerpt(value: unknown, maxChars: number = eventExcerptChars): string {
  let text: string;
  try {
    if (typeof value === 'string') text = value;
    else {
      const measured = measurePlainData(value, excerptLimits);
      text = measured.ok
        ? (JSON.stringify(value) ?? String(value))
        : `[${describeValue(value)} not shown: ${measured.problem}]`;
    }
  } catch {
    try {
      text = String(value);
    } catch {
      text = '[unreadable value]';
    }
  }
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}… (${text.length} chars)`;
}

/** A value past these is described, not written out: telemetry must stay cheap. */
const excerptLimits = { maxNodes: 10_000, maxChars: 1_000_000, maxDepth: 200 };

/**
 * The excerpt of a host call's arguments: the lone argument on its own (the usual
 * `llm_query(prompt)`), else the argument list.
 */
export function argumentsExcerpt(args: readonly unknown[]): string {
  return eventExcerpt(args.length === 1 ? args[0] : args);
}
