import { UnknownScorerError } from '../errors/unknown-scorer-error.js';
import { extractNumber } from './extract-number.js';
import { answerJson, jsonEqual, jsonSubset } from './json-match.js';
import { answerText, normalizeAnswer } from './normalize-answer.js';
import {
  defaultNumberTolerance,
  type NumberTolerance,
  withinTolerance,
} from './number-tolerance.js';
import type { ScoreInput, ScoreOutcome, Scorer } from './scorer.js';
import { tokenF1 } from './token-f1.js';

/** The scorers that need no model and no module, by name. */
export const builtInScorerNames = ['exact', 'contains', 'number', 'f1', 'regex', 'json'] as const;

/** The name of a built-in scorer. */
export type BuiltInScorerName = (typeof builtInScorerNames)[number];

/** Settings of the built-in scorers; each reads only its own. */
export interface BuiltInScorerSettings {
  /** `number`: how close counts as equal (default: equal up to floating-point noise). */
  readonly tolerance?: NumberTolerance;
  /** `json`: `equal` (default) wants the same value; `subset` lets the answer hold more keys. */
  readonly jsonMatch?: 'equal' | 'subset';
}

/**
 * A built-in scorer:
 * - `exact`: 1 when the answer equals `expected` after {@link normalizeAnswer} (case, spaces,
 *   surrounding quotes, a final period), else 0;
 * - `contains`: 1 when the normalized answer contains the normalized `expected`;
 * - `number`: 1 when the answer's number (the last one in its text) is within the tolerance of
 *   `expected` (a number or a numeric string);
 * - `f1`: token-overlap F1 (SQuAD), a fraction;
 * - `regex`: 1 when `expected` (a pattern, or `/pattern/flags`) matches the answer's text;
 * - `json`: 1 when the answer's JSON equals `expected`, or holds it (`jsonMatch: 'subset'`).
 * For every scorer but `json`, an `expected` array lists accepted answers: the best one counts.
 *
 * @throws {UnknownScorerError} for any other name, naming the known ones.
 */
export function createBuiltInScorer(name: string, settings: BuiltInScorerSettings = {}): Scorer {
  if (!isBuiltInScorerName(name)) {
    throw new UnknownScorerError(
      `@rlm/eval: no scorer ${JSON.stringify(name)}; use one of ${[...builtInScorerNames, 'judge'].join(', ')}, or the path of a module (./my-scorer.mjs)`,
      { scorer: name },
    );
  }
  const compare = comparers(settings)[name];
  return {
    name,
    async score(input) {
      if (name === 'json') return compare(input.answer, input.expected);
      const accepted = Array.isArray(input.expected) ? input.expected : [input.expected];
      if (accepted.length === 0) return invalid('"expected" is an empty list of answers');
      let best: ScoreOutcome | undefined;
      for (const expected of accepted) {
        const outcome = compare(input.answer, expected);
        if (outcome.score === null) return outcome;
        if (best === undefined || outcome.score > (best.score ?? 0)) best = outcome;
      }
      return best!;
    },
  };
}

/** Whether `name` is one of {@link builtInScorerNames}. */
export function isBuiltInScorerName(name: string): name is BuiltInScorerName {
  return (builtInScorerNames as readonly string[]).includes(name);
}

type Compare = (answer: ScoreInput['answer'], expected: unknown) => ScoreOutcome;

function comparers(settings: BuiltInScorerSettings): Record<BuiltInScorerName, Compare> {
  const tolerance = settings.tolerance ?? defaultNumberTolerance;
  return {
    exact: (answer, expected) =>
      binary(normalizeAnswer(answerText(answer)) === normalizeAnswer(answerText(expected))),
    contains: (answer, expected) =>
      binary(normalizeAnswer(answerText(answer)).includes(normalizeAnswer(answerText(expected)))),
    number: (answer, expected) => {
      const wanted =
        typeof expected === 'number'
          ? expected
          : typeof expected === 'string' && expected.trim() !== ''
            ? Number(expected.replace(/[,_]/g, ''))
            : Number.NaN;
      if (!Number.isFinite(wanted)) {
        return invalid(`"expected" ${answerText(expected).slice(0, 40)} is not a number`);
      }
      const given = extractNumber(answer);
      if (given === undefined) return { score: 0, note: 'no number in the answer' };
      return binary(withinTolerance(given, wanted, tolerance), `read ${given}`);
    },
    f1: (answer, expected) => ({
      score: roundScore(tokenF1(answerText(answer), answerText(expected))),
    }),
    regex: (answer, expected) => {
      const pattern = compilePattern(expected);
      if (pattern instanceof Error) return invalid(pattern.message);
      return binary(pattern.test(answerText(answer)));
    },
    json: (answer, expected) => {
      const parsed = answerJson(answer);
      if (parsed === undefined) return { score: 0, note: 'the answer is not JSON' };
      return binary(
        settings.jsonMatch === 'subset'
          ? jsonSubset(expected, parsed.value)
          : jsonEqual(parsed.value, expected),
      );
    },
  };
}

function binary(pass: boolean, note?: string): ScoreOutcome {
  return note === undefined ? { score: pass ? 1 : 0 } : { score: pass ? 1 : 0, note };
}

function invalid(message: string): ScoreOutcome {
  return { score: null, failure: { kind: 'invalid', message } };
}

/** Scores are kept to 6 decimals, so that a file and a report show the same number. */
function roundScore(score: number): number {
  return Math.round(score * 1e6) / 1e6;
}

/** `expected` as a regular expression: `/pattern/flags`, or the whole string as a pattern. */
function compilePattern(expected: unknown): RegExp | Error {
  if (typeof expected !== 'string') {
    return new Error(`"expected" must be a pattern (a string) for the regex scorer`);
  }
  const literal = /^\/(.*)\/([dgimsuvy]*)$/s.exec(expected);
  try {
    // `g` and `y` would make `test` depend on earlier calls.
    return literal
      ? new RegExp(literal[1]!, literal[2]!.replace(/[gy]/g, ''))
      : new RegExp(expected);
  } catch (error) {
    return new Error(
      `"expected" ${expected.slice(0, 60)} is not a valid regular expression (${(error as Error).message})`,
    );
  }
}
