/** Characters of a host call's arguments or result that bridge events carry. */
export const eventExcerptChars = 300;

/**
 * A short, single-string view of `value` for telemetry: strings as they are, anything else as
 * JSON (or `String(value)` when it has no JSON form), cut to `maxChars` characters with `…`
 * and the full length appended when longer. Never throws (a throwing getter or `toJSON`
 * gives `[unreadable value]`).
 */
export function eventExcerpt(value: unknown, maxChars: number = eventExcerptChars): string {
  let text: string;
  try {
    text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
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

/**
 * The excerpt of a host call's arguments: the lone argument on its own (the usual
 * `llm_query(prompt)`), else the argument list.
 */
export function argumentsExcerpt(args: readonly unknown[]): string {
  return eventExcerpt(args.length === 1 ? args[0] : args);
}
