/**
 * `value` as text (strings as they are, anything else as JSON), cut to `maxChars` characters
 * with `… (N chars)` appended when longer. Never throws.
 */
export function excerptText(value: unknown, maxChars: number): string {
  let text: string;
  try {
    text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  } catch {
    text = '[unreadable value]';
  }
  return text.length <= maxChars ? text : `${text.slice(0, maxChars)}… (${text.length} chars)`;
}
