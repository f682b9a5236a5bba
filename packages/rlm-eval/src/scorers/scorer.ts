import type { RunUsage } from '@rlm/core';
import type { EvalItemId } from '../eval-item.js';

/** What a scorer is given for one item. */
export interface ScoreInput {
  /** The item's id. */
  readonly id: EvalItemId;
  /** The question asked. */
  readonly query: string;
  /** The answer given: a string, or the structured value the run submitted (JSON data). */
  readonly answer: unknown;
  /** The item's `expected` value, as the dataset gives it. */
  readonly expected: unknown;
}

/**
 * What a scorer function may return: a number in [0, 1], a boolean (`true` is 1), or an object
 * with such a `score` and a short `note` saying why (shown in the results and the report).
 */
export type ScoreValue =
  | number
  | boolean
  | { readonly score: number | boolean; readonly note?: string };

/**
 * A custom scorer, the default export of a `--scorer ./my-scorer.mjs` module. It may be async.
 * It runs in a worker thread: its input and result cross as plain data, it is stopped when it
 * takes longer than the timeout, and a throw marks that item only.
 *
 * @example
 * ```ts
 * import type { ScorerFunction } from '@rlm/eval';
 * const score: ScorerFunction = ({ answer, expected }) =>
 *   String(answer).toLowerCase().includes(String(expected).toLowerCase());
 * export default score;
 * ```
 */
export type ScorerFunction = (input: ScoreInput) => ScoreValue | Promise<ScoreValue>;

/** Why an item has no score: its scorer failed on it (the item is marked, the eval goes on). */
export interface ScoreFailure {
  /**
   * - `threw`: the scorer threw (or rejected);
   * - `timed-out`: the scorer did not answer within its time;
   * - `invalid`: it returned something that is not a score in [0, 1];
   * - `judge-unparseable`: the judge model's answer holds no score;
   * - `judge-failed`: the judge model's call failed.
   */
  readonly kind: 'threw' | 'timed-out' | 'invalid' | 'judge-unparseable' | 'judge-failed';
  /** One line for people. */
  readonly message: string;
}

/** What a judge model spent on one item, counted apart from the run's own cost. */
export interface JudgeSpend {
  readonly usage: RunUsage;
  /** US dollars; absent when the judge model has no price. */
  readonly costUsd?: number;
}

/** The outcome of scoring one answer. */
export interface ScoreOutcome {
  /** In [0, 1]; `null` when the scorer failed on this item (see `failure`). */
  readonly score: number | null;
  /** Why, in a few words, when the scorer said. */
  readonly note?: string;
  /** Set when `score` is `null`. */
  readonly failure?: ScoreFailure;
  /** The judge's spend, for the `judge` scorer. */
  readonly judge?: JudgeSpend;
}

/** Scores answers. Built-in, judge and module scorers all have this shape. */
export interface Scorer {
  /** `exact`, `contains`, ..., `judge`, or the module's path. */
  readonly name: string;
  /**
   * Scores one answer. Never rejects: a failure is an outcome with `score: null` and a
   * `failure`. Honours `signal` where it waits (a judge's model call).
   */
  score(input: ScoreInput, options?: { readonly signal?: AbortSignal }): Promise<ScoreOutcome>;
}

/** Types a scorer function for a module's default export; returns it unchanged. */
export function defineScorer(scorer: ScorerFunction): ScorerFunction {
  return scorer;
}

/**
 * A scorer function's return value as an outcome: numbers must be finite and in [0, 1];
 * anything else is an `invalid` failure naming what was returned.
 */
export function toScoreOutcome(value: unknown): ScoreOutcome {
  const isRecord = typeof value === 'object' && value !== null && !Array.isArray(value);
  const raw = isRecord ? (value as { score?: unknown }).score : value;
  const note = isRecord ? (value as { note?: unknown }).note : undefined;
  const score = typeof raw === 'boolean' ? (raw ? 1 : 0) : raw;
  if (typeof score !== 'number' || !Number.isFinite(score) || score < 0 || score > 1) {
    return {
      score: null,
      failure: {
        kind: 'invalid',
        message: `the scorer returned ${describeValue(value)}; return a number from 0 to 1, a boolean, or { score, note }`,
      },
    };
  }
  return typeof note === 'string' && note !== '' ? { score, note: note.slice(0, 500) } : { score };
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  try {
    const text = JSON.stringify(value);
    if (text === undefined) return typeof value;
    return text.length > 80 ? `${text.slice(0, 80)}…` : text;
  } catch {
    return typeof value;
  }
}
