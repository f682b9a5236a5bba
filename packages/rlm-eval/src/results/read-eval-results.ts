import { type EvalResult, evalResultKey } from './eval-result.js';

/** What an earlier eval left in its results file. */
export interface EvalResultsFile {
  /** The last complete line of each item and variant pair, in the order first seen. */
  readonly results: readonly EvalResult[];
  /** Whether the file's last line was cut short (a killed eval): append a newline first. */
  readonly endsMidLine: boolean;
}

/**
 * Reads the text of a results file (JSON lines). Lines that are not result objects (a line cut
 * short by a kill, anything else) are ignored; when a pair has several lines (a failed run
 * retried), the last one counts.
 */
export function readEvalResults(text: string): EvalResultsFile {
  const byKey = new Map<string, EvalResult>();
  for (const line of text.split('\n')) {
    const result = parseResult(line);
    if (result === undefined) continue;
    const key = evalResultKey(result.id, result.variant);
    // Re-inserting keeps the first-seen order; the value is the latest.
    byKey.set(key, result);
  }
  return { results: [...byKey.values()], endsMidLine: text.length > 0 && !text.endsWith('\n') };
}

function parseResult(line: string): EvalResult | undefined {
  if (line.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  const idOk =
    (typeof record.id === 'string' && record.id !== '') ||
    (typeof record.id === 'number' && Number.isFinite(record.id));
  const scoreOk =
    record.score === null ||
    (typeof record.score === 'number' && record.score >= 0 && record.score <= 1);
  const usageOk = typeof record.usage === 'object' && record.usage !== null;
  if (!idOk || typeof record.variant !== 'string' || !scoreOk || !usageOk) return undefined;
  if (typeof record.durationMs !== 'number' || typeof record.tokens !== 'number') return undefined;
  return record as unknown as EvalResult;
}
