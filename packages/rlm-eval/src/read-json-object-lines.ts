/** One non-blank line of a JSON-lines file: its object, or why it is not one. */
export type JsonObjectLine =
  | {
      /** Line number, from 1. */
      readonly line: number;
      /** The line's JSON object. */
      readonly fields: Readonly<Record<string, unknown>>;
    }
  | {
      /** Line number, from 1. */
      readonly line: number;
      /** One line saying what is wrong and how to fix it. */
      readonly problem: string;
    };

/**
 * Reads the text of a JSON-lines file (a batch of jobs, an eval dataset) one object a line, in
 * line order. Blank lines are left out; a line that is not valid JSON, or is JSON but not an
 * object (an array, a string, `null`), comes back as a problem whose message shows `example`,
 * the shape a line should have. Lines end at `\n`; a `\r` before it is white space.
 */
export function readJsonObjectLines(text: string, example: string): JsonObjectLine[] {
  const lines: JsonObjectLine[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = index + 1;
    const source = raw.trim();
    if (source === '') return;
    let record: unknown;
    try {
      record = JSON.parse(source);
    } catch {
      lines.push({
        line,
        problem: `not valid JSON; each line must be one object such as ${example}`,
      });
      return;
    }
    if (typeof record !== 'object' || record === null || Array.isArray(record)) {
      lines.push({ line, problem: `not a JSON object; each line must look like ${example}` });
      return;
    }
    lines.push({ line, fields: record as Record<string, unknown> });
  });
  return lines;
}
