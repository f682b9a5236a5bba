import { roundCosts } from './round-costs.js';
import { toPrintableData } from './to-printable-data.js';
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
 * made by {@link toPrintableData} (`Map` as an object, `Set` as an array, `bigint` as a string,
 * a cycle as `"[Circular]"`), in work linear in the answer's size.
 * Always ends with exactly one added newline unless the answer already ends with one. Answers
 * are data cloned out of the sandbox; they are never formatted with `util.inspect`.
 */
export function formatAnswer(answer: unknown): string {
  const text = typeof answer === 'string' ? answer : toJson(answer, 2);
  return text.endsWith('\n') ? text : `${text}\n`;
}

/** One line of `--json` output, newline included; costs rounded to nano-dollars (`roundCost`). */
export function formatJsonReport(report: JsonRunReport): string {
  return `${toJson(report, 0, roundCosts)}\n`;
}

function toJson(
  value: unknown,
  indent: number,
  replacer?: (key: string, value: unknown) => unknown,
): string {
  return JSON.stringify(toPrintableData(value ?? null), replacer, indent);
}
