import { measurePlainData } from './bridge/measure-plain-data.js';
import type { FinalSource } from './events.js';
import { formatIssues, type SchemaCheck } from './schema-check.js';

/** Limits of walking a final answer before the schema check visits it. */
const answerLimits = { maxNodes: 1_000_000, maxChars: 512 * 1024 * 1024, maxDepth: 1_000 };

/**
 * Checks a final answer against the run's output schema. Without a schema the answer is
 * accepted as it is. With one, a `FINAL(...)` text answer is first read as JSON when it parses;
 * the accepted answer is the schema's output (a Standard Schema may coerce or transform it).
 * A rejection carries the text the model is shown: the issues, one bounded line each.
 */
export async function checkAnswer(
  schema: SchemaCheck | undefined,
  answer: unknown,
  source: FinalSource,
): Promise<{ answer: unknown } | { problem: string }> {
  if (!schema) return { answer };
  const structured = source === 'final-text' ? parseJsonAnswer(answer) : answer;
  const measured = measurePlainData(structured, answerLimits);
  const verdict = measured.ok
    ? await schema.check(structured)
    : { ok: false as const, issues: [`#: ${measured.problem}`] };
  if (verdict.ok) return { answer: verdict.value };
  return {
    problem: `Answer not accepted: it does not match the output schema:\n${formatIssues(verdict.issues)}\nFix it and submit again.`,
  };
}

/** With an output schema, a FINAL(...) text answer is read as JSON when it parses. */
function parseJsonAnswer(answer: unknown): unknown {
  if (typeof answer !== 'string') return answer;
  try {
    return JSON.parse(answer);
  } catch {
    return answer;
  }
}
