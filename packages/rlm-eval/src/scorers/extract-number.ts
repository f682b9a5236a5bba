/** A number as written in text: sign, digits with `,` or `_` groups, decimals, exponent. */
const numberPattern = /[-+\u2212]?(?:\d[\d,_]*(?:\.\d+)?|\.\d+)(?:e[-+]?\d+)?/gi;

/**
 * The number an answer gives: the answer itself when it is a number, else the last number
 * written in its text (answers tend to end on their result: "... so the total is 1,250").
 * Thousands separators (`,`, `_`) and a Unicode minus are read. `undefined` when there is none.
 */
export function extractNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const matches = value.match(numberPattern);
  if (matches === null) return undefined;
  const last = matches.at(-1)!;
  const parsed = Number(last.replace(/[,_]/g, '').replace('\u2212', '-'));
  return Number.isFinite(parsed) ? parsed : undefined;
}
