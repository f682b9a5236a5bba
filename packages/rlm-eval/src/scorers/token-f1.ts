import { answerTokens } from './normalize-answer.js';

/**
 * Token-overlap F1 of `answer` against `expected` (SQuAD's measure): the harmonic mean of the
 * share of the answer's tokens found in the expected text and the share of the expected
 * tokens found in the answer, counting repeated tokens as often as both have them. Two empty
 * texts score 1; one empty text scores 0.
 */
export function tokenF1(answer: string, expected: string): number {
  const given = answerTokens(answer);
  const wanted = answerTokens(expected);
  if (given.length === 0 || wanted.length === 0) return given.length === wanted.length ? 1 : 0;
  const counts = new Map<string, number>();
  for (const token of wanted) counts.set(token, (counts.get(token) ?? 0) + 1);
  let common = 0;
  for (const token of given) {
    const left = counts.get(token) ?? 0;
    if (left > 0) {
      common++;
      counts.set(token, left - 1);
    }
  }
  if (common === 0) return 0;
  const precision = common / given.length;
  const recall = common / wanted.length;
  return (2 * precision * recall) / (precision + recall);
}
