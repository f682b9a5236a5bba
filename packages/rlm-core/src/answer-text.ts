import { measurePlainData } from './bridge/measure-plain-data.js';

/** Limits of walking an answer to write its JSON text. */
const answerLimits = { maxNodes: 1_000_000, maxChars: 512 * 1024 * 1024, maxDepth: 1_000 };

/**
 * PURE: the text of an answer as it would be stored: a string as it is, anything else as JSON,
 * or `''` when it has none (a bigint, a cycle, too large).
 */
export function answerText(answer: unknown): string {
  if (typeof answer === 'string') return answer;
  if (!measurePlainData(answer, answerLimits).ok) return '';
  try {
    return JSON.stringify(answer) ?? '';
  } catch {
    return '';
  }
}
