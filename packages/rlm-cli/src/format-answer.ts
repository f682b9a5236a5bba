import { inspect } from 'node:util';

/** What `--json` prints for one query. */
export interface JsonRunReport {
  readonly answer: unknown;
  /** Root iterations used. */
  readonly iterations: number;
  /** Deepest call depth reached (0 = only the root ran). */
  readonly depthReached: number;
  readonly usage: {
    readonly inputTokens: number;
    readonly outputTokens: number;
    readonly modelCalls: number;
  };
  /** Wall time of the query, in milliseconds. */
  readonly durationMs: number;
}

/**
 * The text printed on stdout for an answer: a string as it is, anything else as indented JSON
 * (`Map` as an object, `Set` as an array, `bigint` as a string; a value JSON cannot hold, such
 * as a cycle, falls back to `util.inspect`). Always ends with exactly one added newline unless
 * the answer already ends with one.
 */
export function formatAnswer(answer: unknown): string {
  const text =
    typeof answer === 'string' ? answer : (toJson(answer, 2) ?? inspect(answer, { depth: null }));
  return text.endsWith('\n') ? text : `${text}\n`;
}

/** One line of `--json` output, newline included. An answer JSON cannot hold becomes its `util.inspect` text. */
export function formatJsonReport(report: JsonRunReport): string {
  const line =
    toJson(report, 0) ??
    toJson(
      { ...report, answer: inspect(report.answer, { depth: null, breakLength: Infinity }) },
      0,
    );
  return `${line}\n`;
}

/** JSON text, or `undefined` for values JSON cannot hold (cycles). */
function toJson(value: unknown, indent: number): string | undefined {
  try {
    return JSON.stringify(value ?? null, jsonReplacer, indent);
  } catch {
    return undefined;
  }
}

function jsonReplacer(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Map) return Object.fromEntries(value);
  if (value instanceof Set) return [...value];
  return value;
}
