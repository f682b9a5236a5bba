import type { CallUsage, RunUsage } from '@rlm/core';

/** What `--json` prints for one query. */
export interface JsonRunReport {
  readonly answer: unknown;
  /** Root iterations used. */
  readonly iterations: number;
  /** Deepest call depth reached (0 = only the root ran). */
  readonly depthReached: number;
  /**
   * Tokens (uncached input, output, cache reads and writes), model calls and cost in US dollars
   * of the whole run; `costUsd` is absent when no model call had a price.
   */
  readonly usage: RunUsage;
  /** The same per call of the tree: the root, each `sub_rlm` child, each `llm_query` call. */
  readonly callUsage: readonly CallUsage[];
  /** Wall time of the query, in milliseconds. */
  readonly durationMs: number;
  /** The stored copy of a large answer, when an artifact store kept one. */
  readonly artifact?: { readonly id: string; readonly size: number; readonly createdAt: number };
}

/**
 * The text printed on stdout for an answer: a string as it is, anything else as indented JSON
 * (`Map` as an object, `Set` as an array, `bigint` as a string, a cycle as `"[Circular]"`).
 * Always ends with exactly one added newline unless the answer already ends with one. Answers
 * are data cloned out of the sandbox; they are never formatted with `util.inspect`.
 */
export function formatAnswer(answer: unknown): string {
  const text = typeof answer === 'string' ? answer : toJson(answer, 2);
  return text.endsWith('\n') ? text : `${text}\n`;
}

/** One line of `--json` output, newline included. */
export function formatJsonReport(report: JsonRunReport): string {
  return `${toJson(report, 0)}\n`;
}

function toJson(value: unknown, indent: number): string {
  return JSON.stringify(withoutCycles(value ?? null, new Set()), jsonReplacer, indent);
}

/** A copy of `value` in which an object that contains itself is replaced by `"[Circular]"`. */
function withoutCycles(value: unknown, ancestors: Set<object>): unknown {
  if (typeof value !== 'object' || value === null || value instanceof Date) return value;
  if (ancestors.has(value)) return '[Circular]';
  ancestors.add(value);
  let copy: unknown;
  if (Array.isArray(value)) copy = value.map((item) => withoutCycles(item, ancestors));
  else if (value instanceof Map) {
    copy = new Map([...value].map(([key, item]) => [key, withoutCycles(item, ancestors)]));
  } else if (value instanceof Set) copy = [...value].map((item) => withoutCycles(item, ancestors));
  else {
    copy = Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, withoutCycles(item, ancestors)]),
    );
  }
  ancestors.delete(value);
  return copy;
}

function jsonReplacer(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Map) return Object.fromEntries(value);
  if (value instanceof Set) return [...value];
  return value;
}
